package dev.sart.agent.cni;

/**
 * One CNI call's bookkeeping: where its time went, as named checkpoints on the monotonic clock
 * printed as the microseconds each phase took (logged at FINE by {@link CniServer}; turn on with
 * the {@code dev.sart.agent.cni} logger at FINE; a checkpoint costs one {@code nanoTime}), and work
 * that need not delay the answer (the INFO line about the pod), run after it is sent.
 */
final class Phases {
  private static final int MAX = 32;
  private final long start = System.nanoTime();
  private final String[] names = new String[MAX];
  private final long[] at = new long[MAX];
  private int n;
  private final java.util.List<Runnable> later = new java.util.ArrayList<>(1);

  /** Ends the phase that began at the previous checkpoint (or at creation) and names it. */
  void mark(String name) {
    if (n < MAX) {
      names[n] = name;
      at[n++] = System.nanoTime();
    }
  }

  /** Work for after the answer: logging, never anything the answer depends on. */
  void later(Runnable r) {
    later.add(r);
  }

  /** Runs what {@link #later} collected. */
  void runLater() {
    for (Runnable r : later) {
      r.run();
    }
    later.clear();
  }

  @Override
  public String toString() {
    StringBuilder sb =
        new StringBuilder("total=")
            .append(((n == 0 ? start : at[n - 1]) - start) / 1000)
            .append("us");
    long prev = start;
    for (int i = 0; i < n; i++) {
      sb.append(' ').append(names[i]).append('=').append((at[i] - prev) / 1000);
      prev = at[i];
    }
    return sb.toString();
  }
}
