package dev.sart.bgp.wire;

import static dev.sart.bgp.wire.Iana.AsPathSegmentType.AS_CONFED_SEQUENCE;
import static dev.sart.bgp.wire.Iana.AsPathSegmentType.AS_CONFED_SET;
import static dev.sart.bgp.wire.Iana.AsPathSegmentType.AS_SEQUENCE;
import static dev.sart.bgp.wire.Iana.AsPathSegmentType.AS_SET;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * RFC 4271 §4.3 and §5.1.2: AS_PATH, well-known mandatory: a sequence of path segments.
 *
 * <pre>
 * +-----------------+-----------------+--------------------------------+
 * | segment type (1)| segment len (1) | len AS numbers (2 or 4 octets) |
 * +-----------------+-----------------+--------------------------------+
 * </pre>
 *
 * Held packed in one int array: per segment a header {@code type << 16 | count} followed by the AS
 * numbers (unsigned). Always 4-octet AS numbers here; the codec narrows them for 2-octet sessions
 * (RFC 6793 §4.2.2).
 */
public final class AsPath implements PathAttribute {

  public static final AsPath EMPTY = new AsPath(new int[0]);

  /** RFC 4271 §4.3: a segment holds at most 255 AS numbers. */
  public static final int MAX_SEGMENT = 255;

  private final int[] packed;

  AsPath(int[] packed) {
    this.packed = packed;
  }

  /** One AS_SEQUENCE (split into segments of 255), or the empty path. */
  public static AsPath sequence(long... asns) {
    Builder b = builder();
    for (int i = 0; i < asns.length; i += MAX_SEGMENT) {
      b.segment(AS_SEQUENCE, Arrays.copyOfRange(asns, i, Math.min(asns.length, i + MAX_SEGMENT)));
    }
    return b.build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A path segment, for reading; the hot paths use the methods of {@link AsPath} instead. */
  public record Segment(int type, List<Long> asns) {}

  public List<Segment> segments() {
    List<Segment> out = new ArrayList<>();
    for (int i = 0; i < packed.length; ) {
      int type = packed[i] >>> 16;
      int count = packed[i] & 0xffff;
      List<Long> asns = new ArrayList<>(count);
      for (int k = 0; k < count; k++) {
        asns.add(packed[i + 1 + k] & 0xffff_ffffL);
      }
      out.add(new Segment(type, List.copyOf(asns)));
      i += 1 + count;
    }
    return out;
  }

  public boolean isEmpty() {
    return packed.length == 0;
  }

  /**
   * RFC 4271 §9.1.2.2 (a) and RFC 5065 §5.3: the length used by route selection; an AS_SET counts
   * as one, confederation segments count nothing.
   */
  public int pathLength() {
    int length = 0;
    for (int i = 0; i < packed.length; ) {
      int type = packed[i] >>> 16;
      int count = packed[i] & 0xffff;
      if (type == AS_SEQUENCE) {
        length += count;
      } else if (type == AS_SET) {
        length += 1;
      }
      i += 1 + count;
    }
    return length;
  }

  /** Whether {@code as} appears anywhere in the path (RFC 4271 §9.1.2 loop detection). */
  public boolean contains(long as) {
    int v = (int) as;
    for (int i = 0; i < packed.length; ) {
      int count = packed[i] & 0xffff;
      for (int k = 1; k <= count; k++) {
        if (packed[i + k] == v) {
          return true;
        }
      }
      i += 1 + count;
    }
    return false;
  }

  /** The first AS of a leading AS_SEQUENCE (the neighbouring AS), or -1. */
  public long firstAs() {
    if (packed.length > 1 && packed[0] >>> 16 == AS_SEQUENCE && (packed[0] & 0xffff) > 0) {
      return packed[1] & 0xffff_ffffL;
    }
    return -1;
  }

  /** Whether any segment is AS_CONFED_SEQUENCE or AS_CONFED_SET (RFC 5065). */
  public boolean hasConfederationSegments() {
    for (int i = 0; i < packed.length; ) {
      int type = packed[i] >>> 16;
      if (type == AS_CONFED_SEQUENCE || type == AS_CONFED_SET) {
        return true;
      }
      i += 1 + (packed[i] & 0xffff);
    }
    return false;
  }

  /** Whether every AS number fits 2 octets (RFC 6793 §4.2.2: then no AS4_PATH is needed). */
  public boolean fitsTwoOctets() {
    for (int i = 0; i < packed.length; ) {
      int count = packed[i] & 0xffff;
      for (int k = 1; k <= count; k++) {
        if ((packed[i + k] & 0xffff_0000) != 0) {
          return false;
        }
      }
      i += 1 + count;
    }
    return true;
  }

  /** RFC 4271 §5.1.2: {@code as} prepended to the leading AS_SEQUENCE, or as a new one. */
  public AsPath prepend(long as) {
    Attributes.checkU32(as);
    if (packed.length > 0
        && packed[0] >>> 16 == AS_SEQUENCE
        && (packed[0] & 0xffff) < MAX_SEGMENT) {
      int[] p = new int[packed.length + 1];
      p[0] = packed[0] + 1;
      p[1] = (int) as;
      System.arraycopy(packed, 1, p, 2, packed.length - 1);
      return new AsPath(p);
    }
    int[] p = new int[packed.length + 2];
    p[0] = AS_SEQUENCE << 16 | 1;
    p[1] = (int) as;
    System.arraycopy(packed, 0, p, 2, packed.length);
    return new AsPath(p);
  }

  /** The packed form; callers never write to it. */
  int[] packed() {
    return packed;
  }

  @Override
  public int typeCode() {
    return Iana.AttributeType.AS_PATH;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof AsPath other && Arrays.equals(packed, other.packed);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(packed);
  }

  /** E.g. {@code AsPath[65001 65002 {65003 65004} (65010)]}; confederation sets use "[...]". */
  @Override
  public String toString() {
    StringBuilder s = new StringBuilder("AsPath[");
    for (int i = 0; i < packed.length; ) {
      int type = packed[i] >>> 16;
      int count = packed[i] & 0xffff;
      if (i > 0) {
        s.append(' ');
      }
      String open =
          switch (type) {
            case AS_SET -> "{";
            case AS_CONFED_SEQUENCE -> "(";
            case AS_CONFED_SET -> "[";
            case AS_SEQUENCE -> "";
            default -> "<" + type + ":";
          };
      String close =
          switch (type) {
            case AS_SET -> "}";
            case AS_CONFED_SEQUENCE -> ")";
            case AS_CONFED_SET -> "]";
            case AS_SEQUENCE -> "";
            default -> ">";
          };
      s.append(open);
      for (int k = 1; k <= count; k++) {
        s.append(k > 1 ? " " : "").append(packed[i + k] & 0xffff_ffffL);
      }
      s.append(close);
      i += 1 + count;
    }
    return s.append(']').toString();
  }

  /** Builds a path segment by segment. */
  public static final class Builder {
    private int[] packed = new int[8];
    private int length;
    private int lastHeader = -1;

    private Builder() {}

    /** Appends a segment of {@code type} (1..4); at most 255 AS numbers, at least one. */
    public Builder segment(int type, long... asns) {
      if (type < AS_SET || type > AS_CONFED_SET || asns.length == 0 || asns.length > MAX_SEGMENT) {
        throw new IllegalArgumentException(
            "bad segment: type " + type + ", " + asns.length + " AS numbers");
      }
      header(type, asns.length);
      for (long as : asns) {
        Attributes.checkU32(as);
        packed[length++] = (int) as;
      }
      return this;
    }

    void header(int type, int count) {
      ensure(1 + count);
      lastHeader = length;
      packed[length++] = type << 16 | count;
    }

    /**
     * Appends {@code count} AS numbers of {@code src} from {@code from} as a segment of its own.
     */
    void segment(int type, int[] src, int from, int count) {
      header(type, count);
      System.arraycopy(src, from, packed, length, count);
      length += count;
    }

    /**
     * Appends {@code count} AS numbers of {@code src} from {@code from} as a segment of {@code
     * type}, joined to the previous segment when both are AS_SEQUENCE and fit in one.
     */
    void append(int type, int[] src, int from, int count) {
      if (count == 0) {
        return;
      }
      if (type == AS_SEQUENCE
          && lastHeader >= 0
          && packed[lastHeader] >>> 16 == AS_SEQUENCE
          && (packed[lastHeader] & 0xffff) + count <= MAX_SEGMENT) {
        ensure(count);
        packed[lastHeader] += count;
      } else {
        header(type, count);
      }
      System.arraycopy(src, from, packed, length, count);
      length += count;
    }

    private void ensure(int more) {
      if (length + more > packed.length) {
        packed = Arrays.copyOf(packed, Math.max(packed.length * 2, length + more));
      }
    }

    public AsPath build() {
      return length == 0 ? EMPTY : new AsPath(Arrays.copyOf(packed, length));
    }
  }
}
