package dev.sart.proto;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.grpc.Status;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** The caller's mistakes keep their codes; everything else is a bug: INTERNAL. */
class ApiErrorsTest {
  private static Status.Code code(Throwable t) {
    return ApiErrors.toStatus(t).getStatus().getCode();
  }

  @Test
  void aMistakeJudgedAsTheRequestIsInvalidArgumentOrFailedPrecondition() {
    var bad =
        assertThrows(
            ApiErrors.RequestException.class,
            () ->
                ApiErrors.request(
                    () -> {
                      throw new IllegalArgumentException("prefix: '10.0.0.0/33' is not a prefix");
                    }));
    assertEquals(Status.Code.INVALID_ARGUMENT, code(bad));
    assertEquals(
        "prefix: '10.0.0.0/33' is not a prefix",
        ApiErrors.toStatus(bad).getStatus().getDescription());
    var state =
        assertThrows(
            ApiErrors.RequestException.class,
            () ->
                ApiErrors.request(
                    () -> {
                      throw new IllegalStateException("the AS is set already");
                    }));
    assertEquals(Status.Code.FAILED_PRECONDITION, code(state));
  }

  @Test
  void anythingElseIsABugNeverInvalidArgument() {
    assertEquals(Status.Code.INTERNAL, code(new IllegalArgumentException("a bug deep inside")));
    assertEquals(Status.Code.INTERNAL, code(new NullPointerException()));
    assertEquals(
        Status.Code.INTERNAL,
        code(new CompletionException(new IllegalStateException("a bug on the RIB thread"))));
    assertEquals(
        Status.Code.NOT_FOUND,
        code(Status.NOT_FOUND.withDescription("no peer").asRuntimeException()));
    assertEquals(
        Status.Code.INVALID_ARGUMENT,
        code(
            new CompletionException(
                new ApiErrors.RequestException(Status.Code.INVALID_ARGUMENT, "x"))));
  }
}
