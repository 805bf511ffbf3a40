package dev.sart.agent.ipam;

/** No address can be given: an unknown pool, or every block of the pool is full. */
public final class IpamException extends Exception {
  private static final long serialVersionUID = 1L;

  private final boolean tryAgainLater;

  public IpamException(String message) {
    this(message, false);
  }

  /**
   * @param tryAgainLater more addresses are on their way (e.g. a block was requested): the ADD may
   *     be retried
   */
  public IpamException(String message, boolean tryAgainLater) {
    super(message);
    this.tryAgainLater = tryAgainLater;
  }

  public boolean tryAgainLater() {
    return tryAgainLater;
  }
}
