package dev.sart.bgp.api;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;

/** Domain exceptions → gRPC status, in one place. */
final class Errors {
  private Errors() {}

  static StatusRuntimeException toStatus(Throwable e) {
    return switch (e) {
      case StatusRuntimeException s -> s;
      case IllegalArgumentException i ->
          Status.INVALID_ARGUMENT.withDescription(i.getMessage()).asRuntimeException();
      case IllegalStateException i ->
          Status.FAILED_PRECONDITION.withDescription(i.getMessage()).asRuntimeException();
      default ->
          Status.INTERNAL
              .withDescription(String.valueOf(e.getMessage()))
              .withCause(e)
              .asRuntimeException();
    };
  }
}
