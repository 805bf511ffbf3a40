package dev.sart.bgp.wire;

/** NLRI of a family whose encoding the codec does not unpack, kept byte for byte. */
public record OpaqueNlri(Octets bytes) implements Nlri {

  public static final OpaqueNlri EMPTY = new OpaqueNlri(Octets.EMPTY);

  @Override
  public int size() {
    return 0;
  }

  @Override
  public boolean isEmpty() {
    return bytes.isEmpty();
  }
}
