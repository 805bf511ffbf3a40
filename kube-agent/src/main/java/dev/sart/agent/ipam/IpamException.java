package dev.sart.agent.ipam;

/** No address can be given: an unknown pool, or every block of the pool is full. */
public final class IpamException extends Exception {
  private static final long serialVersionUID = 1L;

  public IpamException(String message) {
    super(message);
  }
}
