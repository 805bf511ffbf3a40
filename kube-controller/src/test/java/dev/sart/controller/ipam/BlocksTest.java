package dev.sart.controller.ipam;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.net.Ip;
import dev.sart.net.IpPrefix;
import java.math.BigInteger;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class BlocksTest {
  @Test
  void everyPoolAndBlockSizeCombinationTilesThePoolExactly() {
    for (int prefix = 20; prefix <= 32; prefix++) {
      var pool = IpPrefix.parseCidr("10.16.0.0/" + prefix);
      for (int size = prefix; size <= 32; size++) {
        var blocks = new Blocks(pool, size);
        assertEquals(BigInteger.ONE.shiftLeft(size - prefix), blocks.count(), prefix + "/" + size);
        long stride = 1L << (32 - size);
        long count = blocks.count().longValueExact();
        for (long i = 0; i < count; i += Math.max(1, count / 7)) {
          var block = blocks.block(BigInteger.valueOf(i));
          long network = Ip.toNumber(pool.address()).longValueExact();
          assertEquals(
              network + i * stride,
              Ip.toNumber(block.address()).longValueExact(),
              prefix + "/" + size + " #" + i);
          assertEquals(size, block.length());
          assertEquals(BigInteger.valueOf(i), blocks.indexOf(block).orElseThrow());
        }
        var last = blocks.block(blocks.count().subtract(BigInteger.ONE));
        assertTrue(
            pool.contains(last.addressAt(last.size().subtract(BigInteger.ONE))),
            "last block ends inside the pool");
      }
    }
  }

  @Test
  void sartsSamplePoolsAndTheCaseTheXorGotWrong() {
    var pod = new Blocks(IpPrefix.parseCidr("10.1.0.0/24"), 29);
    assertEquals(
        List.of("10.1.0.0/29", "10.1.0.8/29", "10.1.0.248/29"),
        List.of(
            pod.block(BigInteger.ZERO).toString(),
            pod.block(BigInteger.ONE).toString(),
            pod.block(BigInteger.valueOf(31)).toString()));
    var small = new Blocks(IpPrefix.parseCidr("10.10.0.0/29"), 32);
    assertEquals(BigInteger.valueOf(8), small.count());
    assertEquals("10.10.0.5/32", small.block(BigInteger.valueOf(5)).toString());
    // /16 pool with /26 blocks: 2 ^ 6 as XOR is 4, the stride is 64
    assertEquals(
        "10.16.0.64/26",
        new Blocks(IpPrefix.parseCidr("10.16.0.0/16"), 26).block(BigInteger.ONE).toString());
    var v6 = new Blocks(IpPrefix.parseCidr("fd00:10::/48"), 120);
    assertEquals(BigInteger.ONE.shiftLeft(72), v6.count());
    assertEquals("fd00:10::100/120", v6.block(BigInteger.ONE).toString());
  }

  @Test
  void firstFreeFillsHolesAndKnowsWhenFull() {
    var blocks = new Blocks(IpPrefix.parseCidr("10.10.0.0/30"), 32);
    assertEquals(BigInteger.ZERO, blocks.firstFree(new TreeSet<>()).orElseThrow());
    assertEquals(
        BigInteger.ONE,
        blocks.firstFree(new TreeSet<>(List.of(BigInteger.ZERO, BigInteger.TWO))).orElseThrow());
    assertFalse(
        blocks
            .firstFree(
                new TreeSet<>(
                    List.of(
                        BigInteger.ZERO, BigInteger.ONE, BigInteger.TWO, BigInteger.valueOf(3))))
            .isPresent());
    assertFalse(blocks.indexOf(IpPrefix.parseCidr("10.10.0.4/32")).isPresent(), "outside the pool");
  }
}
