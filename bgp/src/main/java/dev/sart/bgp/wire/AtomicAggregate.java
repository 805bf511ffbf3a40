package dev.sart.bgp.wire;

/** RFC 4271 §5.1.6: ATOMIC_AGGREGATE, well-known discretionary, no value. */
public record AtomicAggregate() implements PathAttribute {

  public static final AtomicAggregate INSTANCE = new AtomicAggregate();

  @Override
  public int typeCode() {
    return Iana.AttributeType.ATOMIC_AGGREGATE;
  }
}
