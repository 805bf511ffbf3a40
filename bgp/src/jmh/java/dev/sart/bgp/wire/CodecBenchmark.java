package dev.sart.bgp.wire;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Decode and encode costs of the UPDATE codec (see README.md for the command and the figures).
 * 1,000 IPv4 /24 and 500 IPv6 /64 do not fit 4096 octets, so the session has RFC 8654 extended
 * messages, as a speaker packing many prefixes per UPDATE would.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class CodecBenchmark {

    private static final SessionOptions OPTIONS = SessionOptions.FOUR_OCTET_AS.withExtendedMessage(true);

    /** ORIGIN, a 3-AS AS_PATH, NEXT_HOP, MED, two communities and a large community. */
    static PathAttributes typicalAttributes() {
        return PathAttributes.of(Origin.IGP, AsPath.sequence(65001, 65002, 4200000001L), NextHop.of("192.0.2.1"),
                new MultiExitDisc(10),
                Communities.of(Communities.community(65000, 100), Iana.WellKnownCommunity.NO_EXPORT),
                LargeCommunities.of(4200000001L, 1, 2));
    }

    private final BgpCodec codec = new BgpCodec(OPTIONS);
    private final WireWriter out = new WireWriter(8192);
    private Update v4Update;
    private byte[] v4Bytes;
    private byte[] v6Bytes;
    private byte[] attributesOnly;

    @Setup
    public void setUp() {
        Ipv4Prefixes.Builder v4 = Ipv4Prefixes.builder();
        for (int i = 0; i < 1000; i++) {
            v4.add(0x0a000000 | i << 8, 24); // 10.0.0.0/24, 10.0.1.0/24, ...
        }
        v4Update = new Update(Ipv4Prefixes.EMPTY, typicalAttributes(), v4.build());
        v4Bytes = codec.encode(v4Update);

        Ipv6Prefixes.Builder v6 = Ipv6Prefixes.builder();
        for (int i = 0; i < 500; i++) {
            v6.add(0x20010db8_00000000L | i, 0, 64); // 2001:db8:0:i::/64
        }
        PathAttributes v6Attributes = PathAttributes.of(Origin.IGP, AsPath.sequence(65001, 65002, 4200000001L),
                new MultiExitDisc(10), Communities.of(Communities.community(65000, 100)),
                new MpReachNlri(Family.IPV6_UNICAST, MpNextHop.V6WithLinkLocal.of("2001:db8::1", "fe80::1"), v6.build()));
        v6Bytes = codec.encode(new Update(Ipv4Prefixes.EMPTY, v6Attributes, Ipv4Prefixes.EMPTY));

        attributesOnly = codec.encode(new Update(Ipv4Prefixes.EMPTY, typicalAttributes(),
                Ipv4Prefixes.builder().add("198.51.100.0/24").build()));
    }

    /** 1,000 IPv4 /24 with the typical attributes: divide by 1,000 for the cost per prefix. */
    @Benchmark
    public Message decodeIpv4Update1000() throws NotificationException {
        return codec.decode(v4Bytes, 0, v4Bytes.length);
    }

    /** The same UPDATE encoded into a reused buffer. */
    @Benchmark
    public int encodeIpv4Update1000() {
        out.clear();
        codec.encode(v4Update, out);
        return out.length();
    }

    /** An MP_REACH_NLRI with 500 IPv6 /64 (global and link-local next hop). */
    @Benchmark
    public Message decodeIpv6MpReach500() throws NotificationException {
        return codec.decode(v6Bytes, 0, v6Bytes.length);
    }

    /** The typical attribute set with one prefix: what an attribute set costs to decode. */
    @Benchmark
    public Message decodeAttributeSet() throws NotificationException {
        return codec.decode(attributesOnly, 0, attributesOnly.length);
    }
}
