package dev.sart.fib.netlink;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/** An enum constant standing for one bit of a kernel flags word. */
interface BitFlag {
  int bit();

  /** The constants whose bits are set in {@code bits} (unknown bits are dropped). */
  static <E extends Enum<E> & BitFlag> Set<E> decode(Class<E> type, int bits) {
    EnumSet<E> set = EnumSet.noneOf(type);
    for (E e : type.getEnumConstants()) {
      if ((bits & e.bit()) != 0) {
        set.add(e);
      }
    }
    return Collections.unmodifiableSet(set);
  }

  static int encode(Set<? extends BitFlag> flags) {
    int bits = 0;
    for (BitFlag f : flags) {
      bits |= f.bit();
    }
    return bits;
  }

  /** An immutable copy that keeps enum order (so records holding it compare and print stably). */
  static <E extends Enum<E>> Set<E> copy(Class<E> type, Set<E> flags) {
    EnumSet<E> set = EnumSet.noneOf(type);
    set.addAll(flags);
    return Collections.unmodifiableSet(set);
  }
}
