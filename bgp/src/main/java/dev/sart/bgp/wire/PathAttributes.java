package dev.sart.bgp.wire;

import java.util.Arrays;
import java.util.Optional;

/**
 * The path attributes of an UPDATE in their wire order, each with the flags octet it was received
 * with (or its RFC flags when built here). Equal by value, so that equal sets can be interned.
 *
 * <p>Flags matter beyond the Optional/Transitive bits the RFCs fix: the Partial bit is information
 * (RFC 4271 §5), and the Extended Length bit is kept so that an attribute re-encodes to the bytes
 * it came from (the encoder sets it anyway when the value exceeds 255 octets).
 */
public final class PathAttributes {

  public static final PathAttributes EMPTY = new PathAttributes(new PathAttribute[0], new byte[0]);

  private final PathAttribute[] attributes;
  private final byte[] flags;

  /** Takes ownership of the arrays. */
  PathAttributes(PathAttribute[] attributes, byte[] flags) {
    this.attributes = attributes;
    this.flags = flags;
  }

  /** The attributes in this order with their RFC flags. */
  public static PathAttributes of(PathAttribute... attributes) {
    Builder b = builder();
    for (PathAttribute a : attributes) {
      b.add(a);
    }
    return b.build();
  }

  public static Builder builder() {
    return new Builder(8);
  }

  /** A builder for about {@code expected} attributes. */
  static Builder builder(int expected) {
    return new Builder(expected);
  }

  public int size() {
    return attributes.length;
  }

  public boolean isEmpty() {
    return attributes.length == 0;
  }

  public PathAttribute get(int index) {
    return attributes[index];
  }

  /** The flags octet of the attribute at {@code index} (low four bits always zero). */
  public int flags(int index) {
    return flags[index] & 0xff;
  }

  /** The attribute of this kind, or null. */
  public <T extends PathAttribute> T orNull(Class<T> kind) {
    for (PathAttribute a : attributes) {
      if (kind.isInstance(a)) {
        return kind.cast(a);
      }
    }
    return null;
  }

  public <T extends PathAttribute> Optional<T> find(Class<T> kind) {
    return Optional.ofNullable(orNull(kind));
  }

  /** The attribute with this type code, or null. */
  public PathAttribute byType(int typeCode) {
    for (PathAttribute a : attributes) {
      if (a.typeCode() == typeCode) {
        return a;
      }
    }
    return null;
  }

  /** A copy in which {@code attribute} replaces the one of its type code, or is appended. */
  public PathAttributes with(PathAttribute attribute) {
    for (int i = 0; i < attributes.length; i++) {
      if (attributes[i].typeCode() == attribute.typeCode()) {
        PathAttribute[] a = attributes.clone();
        byte[] f = flags.clone();
        a[i] = attribute;
        f[i] = (byte) (attribute.defaultFlags() | (f[i] & Iana.AttributeFlag.PARTIAL));
        return new PathAttributes(a, f);
      }
    }
    PathAttribute[] a = Arrays.copyOf(attributes, attributes.length + 1);
    byte[] f = Arrays.copyOf(flags, flags.length + 1);
    a[attributes.length] = attribute;
    f[attributes.length] = (byte) attribute.defaultFlags();
    return new PathAttributes(a, f);
  }

  /**
   * A copy without the attribute of this type code, or this set itself when it has none (the export
   * path calls this for every route and peer: no allocation when there is nothing to drop).
   */
  public PathAttributes without(int typeCode) {
    int at = -1;
    for (int i = 0; i < attributes.length; i++) {
      if (attributes[i].typeCode() == typeCode) {
        at = i;
        break;
      }
    }
    if (at < 0) {
      return this;
    }
    if (attributes.length == 1) {
      return EMPTY;
    }
    PathAttribute[] a = new PathAttribute[attributes.length - 1];
    byte[] f = new byte[flags.length - 1];
    System.arraycopy(attributes, 0, a, 0, at);
    System.arraycopy(flags, 0, f, 0, at);
    System.arraycopy(attributes, at + 1, a, at, attributes.length - at - 1);
    System.arraycopy(flags, at + 1, f, at, flags.length - at - 1);
    PathAttributes rest = new PathAttributes(a, f);
    // a type code appears at most once in a parsed set (RFC 7606 §3 g keeps the first), but a
    // set built by hand may repeat it: drop every occurrence as before
    return rest.byType(typeCode) == null ? rest : rest.without(typeCode);
  }

  /**
   * RFC 4271 §5 and §9.1.3: the attributes as they may be passed on to another peer: an
   * unrecognized optional non-transitive attribute is dropped, an unrecognized optional transitive
   * one keeps its value and gets the Partial bit.
   */
  public PathAttributes forReadvertisement() {
    boolean unknown = false;
    for (PathAttribute a : attributes) {
      unknown |= a instanceof UnknownAttribute;
    }
    if (!unknown) {
      return this; // nothing to drop or mark: no copy
    }
    Builder b = builder();
    for (int i = 0; i < attributes.length; i++) {
      if (attributes[i] instanceof UnknownAttribute u) {
        if (u.transitive()) {
          UnknownAttribute partial = u.withPartial();
          b.add(partial, (flags[i] & 0xff) | Iana.AttributeFlag.PARTIAL);
        }
      } else {
        b.add(attributes[i], flags[i] & 0xff);
      }
    }
    return b.build();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PathAttributes other
        && Arrays.equals(flags, other.flags)
        && Arrays.equals(attributes, other.attributes);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(attributes) * 31 + Arrays.hashCode(flags);
  }

  @Override
  public String toString() {
    return "PathAttributes" + Arrays.toString(attributes);
  }

  /** Collects attributes in wire order. */
  public static final class Builder {
    private PathAttribute[] attributes;
    private byte[] flags;
    private int size;

    private Builder(int expected) {
      attributes = new PathAttribute[Math.max(1, expected)];
      flags = new byte[Math.max(1, expected)];
    }

    /** Adds with the RFC flags of the attribute. */
    public Builder add(PathAttribute attribute) {
      return add(attribute, attribute.defaultFlags());
    }

    /**
     * Adds with these flags (Optional, Transitive, Partial, Extended Length; low bits are dropped).
     */
    public Builder add(PathAttribute attribute, int flags) {
      if (size == attributes.length) {
        attributes = Arrays.copyOf(attributes, Math.max(4, size * 2));
        this.flags = Arrays.copyOf(this.flags, Math.max(4, size * 2));
      }
      attributes[size] = attribute;
      this.flags[size] = (byte) (flags & 0xf0);
      size++;
      return this;
    }

    public PathAttributes build() {
      if (size == 0) {
        return EMPTY;
      }
      if (size == attributes.length) {
        PathAttributes built = new PathAttributes(attributes, flags);
        attributes = new PathAttribute[0]; // the arrays now belong to the result
        flags = new byte[0];
        size = 0;
        return built;
      }
      return new PathAttributes(Arrays.copyOf(attributes, size), Arrays.copyOf(flags, size));
    }
  }
}
