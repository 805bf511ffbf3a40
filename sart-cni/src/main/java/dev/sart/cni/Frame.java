package dev.sart.cni;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.Charset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The framing between the plugin and the agent (DESIGN.md §8), big-endian:
 *
 * <pre>
 * request  = "SCNI" u8 version(1) u16 count { u16 length, UTF-8 "NAME=VALUE" }*count  u32 length, netconf bytes
 * response = "SCNI" u8 version(1) u8 exit-code  u32 length, bytes for stdout
 * </pre>
 *
 * The request carries the {@code CNI_*} environment and stdin exactly as the runtime gave them; the
 * response is what the plugin prints and the code it exits with. Nothing is parsed here. A chained
 * plugin ({@code sart-veth}, {@code sart-router}) adds one more entry, {@link #PLUGIN}{@code
 * =its-name}; a request without it comes from {@code sart-cni}, whose frames are unchanged.
 *
 * <p>The one definition of the framing: the plugin encodes requests and decodes responses with it,
 * the agent's {@code CniServer} decodes requests and encodes responses with it.
 */
public final class Frame {
  static final byte[] MAGIC = {'S', 'C', 'N', 'I'};
  static final int VERSION = 1;

  /**
   * The request's environment entry naming the chained plugin that called; absent: {@code
   * sart-cni}. Not a {@code CNI_*} name, so it never collides with the runtime's variables.
   */
  public static final String PLUGIN = "SART_PLUGIN";

  /**
   * UTF-8, looked up by the name the JVM's default charset already put in {@code Charset}'s cache:
   * {@code UTF_8} initialises that class, which loads eight charset classes more, and the plugin's
   * AOT cache loads every class it holds at every start, VERSION's too.
   */
  static final Charset UTF_8 = Charset.forName("UTF-8");

  /** No netconf or result is anywhere near this; a larger length is a broken stream. */
  static final int MAX_BYTES = 16 << 20;

  private Frame() {}

  /** A request: the environment variables and the netconf bytes. */
  public record Request(Map<String, String> env, byte[] stdin) {}

  /** A response: the bytes to print and the exit code. */
  public record Response(int exitCode, byte[] stdout) {}

  public static byte[] encodeRequest(Map<String, String> env, byte[] stdin) {
    byte[][] entries = new byte[env.size()][];
    int size = MAGIC.length + 1 + 2 + 4 + stdin.length;
    int n = 0;
    for (Map.Entry<String, String> e : env.entrySet()) {
      byte[] kv = (e.getKey() + "=" + e.getValue()).getBytes(UTF_8);
      if (kv.length > 0xffff) {
        throw new IllegalArgumentException(
            "environment variable " + e.getKey() + " is longer than 65535 bytes");
      }
      entries[n++] = kv;
      size += 2 + kv.length;
    }
    byte[] out = new byte[size];
    int at = header(out);
    at = put16(out, at, n);
    for (byte[] kv : entries) {
      at = put16(out, at, kv.length);
      System.arraycopy(kv, 0, out, at, kv.length);
      at += kv.length;
    }
    at = put32(out, at, stdin.length);
    System.arraycopy(stdin, 0, out, at, stdin.length);
    return out;
  }

  public static Request decodeRequest(InputStream in) throws IOException {
    header(in);
    int count = read16(in);
    Map<String, String> env = new LinkedHashMap<>();
    for (int i = 0; i < count; i++) {
      int len = read16(in);
      byte[] bytes = in.readNBytes(len);
      if (bytes.length < len) {
        throw new EOFException("frame truncated in the environment");
      }
      String kv = new String(bytes, UTF_8);
      int eq = kv.indexOf('=');
      if (eq <= 0) {
        throw new IOException("malformed environment entry in request: " + kv);
      }
      env.put(kv.substring(0, eq), kv.substring(eq + 1));
    }
    return new Request(env, body(in));
  }

  public static byte[] encodeResponse(int exitCode, byte[] stdout) {
    byte[] out = new byte[MAGIC.length + 1 + 1 + 4 + stdout.length];
    int at = header(out);
    out[at++] = (byte) exitCode;
    at = put32(out, at, stdout.length);
    System.arraycopy(stdout, 0, out, at, stdout.length);
    return out;
  }

  public static Response decodeResponse(InputStream in) throws IOException {
    header(in);
    int code = read8(in);
    return new Response(code, body(in));
  }

  // Big-endian by hand, not DataInputStream/DataOutputStream: those go through
  // jdk.internal.util.ByteArray, whose initialisation makes a VarHandle for every primitive type
  // (~0.8 ms of the plugin's interpreted, short-lived JVM per forwarded call).

  private static int header(byte[] out) {
    System.arraycopy(MAGIC, 0, out, 0, MAGIC.length);
    out[MAGIC.length] = VERSION;
    return MAGIC.length + 1;
  }

  private static int put16(byte[] out, int at, int v) {
    out[at] = (byte) (v >>> 8);
    out[at + 1] = (byte) v;
    return at + 2;
  }

  private static int put32(byte[] out, int at, int v) {
    out[at] = (byte) (v >>> 24);
    out[at + 1] = (byte) (v >>> 16);
    out[at + 2] = (byte) (v >>> 8);
    out[at + 3] = (byte) v;
    return at + 4;
  }

  private static void header(InputStream in) throws IOException {
    byte[] magic = in.readNBytes(4);
    if (magic.length < 4) {
      throw new EOFException("connection closed before a frame");
    }
    for (int i = 0; i < 4; i++) {
      if (magic[i] != MAGIC[i]) {
        throw new IOException("not a sart-cni frame (bad magic)");
      }
    }
    int version = read8(in);
    if (version != VERSION) {
      throw new IOException("sart-cni frame version " + version + ", expected " + VERSION);
    }
  }

  private static int read8(InputStream in) throws IOException {
    return readBigEndian(in, 1);
  }

  private static int read16(InputStream in) throws IOException {
    return readBigEndian(in, 2);
  }

  /** {@code n} bytes in one read where they are there (the agent reads from its socket). */
  private static int readBigEndian(InputStream in, int n) throws IOException {
    byte[] b = new byte[n];
    if (in.readNBytes(b, 0, n) < n) {
      throw new EOFException("frame truncated");
    }
    int v = 0;
    for (byte x : b) {
      v = v << 8 | (x & 0xff);
    }
    return v;
  }

  private static byte[] body(InputStream in) throws IOException {
    int length = readBigEndian(in, 4);
    if (length < 0 || length > MAX_BYTES) {
      throw new IOException("frame body of " + Integer.toUnsignedString(length) + " bytes");
    }
    byte[] b = in.readNBytes(length);
    if (b.length < length) {
      throw new EOFException("frame body truncated: " + b.length + " of " + length + " bytes");
    }
    return b;
  }

  /**
   * The names of the CNI environment variables the plugin forwards (CNI spec §"Parameters"), in
   * order.
   */
  static List<String> cniVariables(Map<String, String> env) {
    List<String> names = new ArrayList<>();
    for (String k : env.keySet()) {
      if (k.startsWith("CNI_")) {
        names.add(k);
      }
    }
    // insertion sort by hand, a handful of names: List.sort loads ComparableTimSort and
    // LegacyMergeSort into the AOT cache, which loads them at every start
    for (int i = 1; i < names.size(); i++) {
      String k = names.get(i);
      int j = i;
      for (; j > 0 && names.get(j - 1).compareTo(k) > 0; j--) {
        names.set(j, names.get(j - 1));
      }
      names.set(j, k);
    }
    return names;
  }
}
