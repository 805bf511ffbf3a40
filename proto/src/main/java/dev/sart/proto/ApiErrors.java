package dev.sart.proto;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The one mapping from exceptions to gRPC status codes, for every sart API (the speaker's and the
 * FIB's).
 *
 * <p>A service marks where the caller's input is judged: request fields are decoded, and management
 * calls made, inside {@link #request}, which turns an {@link IllegalArgumentException} into
 * INVALID_ARGUMENT and an {@link IllegalStateException} into FAILED_PRECONDITION. Anything else
 * that escapes a call is a bug: INTERNAL, logged with its stack trace, never INVALID_ARGUMENT.
 */
public final class ApiErrors {
  private static final Logger LOG = Logger.getLogger(ApiErrors.class.getName());

  private ApiErrors() {}

  /** The caller's mistake, with the status it gets. */
  public static final class RequestException extends RuntimeException {
    private final Status.Code code;

    public RequestException(Status.Code code, String message) {
      super(message, null, false, false);
      this.code = code;
    }

    public Status.Code code() {
      return code;
    }
  }

  /**
   * Runs {@code judge}, which decodes the request or applies it: its {@link
   * IllegalArgumentException} is INVALID_ARGUMENT, its {@link IllegalStateException}
   * FAILED_PRECONDITION.
   */
  public static <T> T request(Supplier<T> judge) {
    try {
      return judge.get();
    } catch (RequestException | StatusRuntimeException e) {
      throw e;
    } catch (IllegalArgumentException e) {
      throw new RequestException(Status.Code.INVALID_ARGUMENT, e.getMessage());
    } catch (IllegalStateException e) {
      throw new RequestException(Status.Code.FAILED_PRECONDITION, e.getMessage());
    }
  }

  /** {@link #request(Supplier)} for a call with no result. */
  public static void request(Runnable judge) {
    request(
        () -> {
          judge.run();
          return null;
        });
  }

  /** The status an exception that escaped a call becomes. */
  public static StatusRuntimeException toStatus(Throwable e) {
    Throwable t =
        e instanceof java.util.concurrent.CompletionException && e.getCause() != null
            ? e.getCause()
            : e;
    return switch (t) {
      case StatusRuntimeException s -> s;
      case RequestException r ->
          Status.fromCode(r.code()).withDescription(r.getMessage()).asRuntimeException();
      default -> {
        LOG.log(Level.SEVERE, "event=api-internal-error", t);
        yield Status.INTERNAL
            .withDescription(t.getClass().getSimpleName() + ": " + t.getMessage())
            .withCause(t)
            .asRuntimeException();
      }
    };
  }
}
