package dev.sart.bgp.rib;

import java.util.Arrays;

/**
 * One peer's changes waiting to be handed to its Adj-RIB-Out (see {@link RibShard#outboxes}), with
 * the peer and its state at hand for the export loop (no map lookup per prefix and peer).
 */
final class Outbox {
  private static final int MAX = 1024;
  final RibPeer peer;
  final AdjRibIn st;
  private final AdjRibOut out;

  /** The families this peer gets with ADD-PATH, from {@link AddPathExport}; null: none. */
  final AddPathSend addPath;

  private Prefix[] prefixes = new Prefix[16];
  private Attrs[] bases = new Attrs[16];
  private Attrs[] attrs = new Attrs[16];
  private int size;

  Outbox(RibPeer peer, AdjRibIn st) {
    this.peer = peer;
    this.st = st;
    this.out = peer.out();
    this.addPath = out.addPath();
  }

  /** Whether {@code p}'s paths go to this peer through {@link AddPathExport} instead. */
  boolean addPathCovers(Prefix p) {
    return addPath != null && addPath.covers(p.family());
  }

  /**
   * The peer is to have {@code a} for {@code p} (null: withdrawn); it was handed {@code base}
   * before.
   */
  void add(Prefix p, Attrs base, Attrs a) {
    if (size == prefixes.length) {
      if (size == MAX) {
        flush();
      } else {
        prefixes = Arrays.copyOf(prefixes, size * 2);
        bases = Arrays.copyOf(bases, size * 2);
        attrs = Arrays.copyOf(attrs, size * 2);
      }
    }
    prefixes[size] = p;
    bases[size] = base;
    attrs[size] = a;
    size++;
  }

  void flush() {
    if (size > 0) {
      out.recordAll(prefixes, bases, attrs, size);
      Arrays.fill(prefixes, 0, size, null);
      Arrays.fill(bases, 0, size, null);
      Arrays.fill(attrs, 0, size, null);
      size = 0;
    }
  }
}
