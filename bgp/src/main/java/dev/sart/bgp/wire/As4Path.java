package dev.sart.bgp.wire;

/**
 * RFC 6793 §3: AS4_PATH, optional transitive, an AS path with 4-octet AS numbers sent to and by
 * 2-octet-only ("OLD") speakers. The codec produces and consumes it itself (see {@link
 * As4Translation}); a decoded UPDATE carries the merged {@link AsPath} instead.
 */
public record As4Path(AsPath path) implements PathAttribute {

  @Override
  public int typeCode() {
    return Iana.AttributeType.AS4_PATH;
  }
}
