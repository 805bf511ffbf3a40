package dev.sart.cni;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
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

  /** No netconf or result is anywhere near this; a larger length is a broken stream. */
  static final int MAX_BYTES = 16 << 20;

  private Frame() {}

  /** A request: the environment variables and the netconf bytes. */
  public record Request(Map<String, String> env, byte[] stdin) {}

  /** A response: the bytes to print and the exit code. */
  public record Response(int exitCode, byte[] stdout) {}

  public static byte[] encodeRequest(Map<String, String> env, byte[] stdin) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(stdin.length + 512);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.write(MAGIC);
      out.writeByte(VERSION);
      out.writeShort(env.size());
      for (Map.Entry<String, String> e : env.entrySet()) {
        byte[] kv = (e.getKey() + "=" + e.getValue()).getBytes(StandardCharsets.UTF_8);
        if (kv.length > 0xffff) {
          throw new IllegalArgumentException(
              "environment variable " + e.getKey() + " is longer than 65535 bytes");
        }
        out.writeShort(kv.length);
        out.write(kv);
      }
      out.writeInt(stdin.length);
      out.write(stdin);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return bytes.toByteArray();
  }

  public static Request decodeRequest(InputStream in) throws IOException {
    DataInputStream data = new DataInputStream(in);
    header(data);
    int count = data.readUnsignedShort();
    Map<String, String> env = new LinkedHashMap<>();
    for (int i = 0; i < count; i++) {
      int len = data.readUnsignedShort();
      byte[] bytes = data.readNBytes(len);
      if (bytes.length < len) {
        throw new EOFException("frame truncated in the environment");
      }
      String kv = new String(bytes, StandardCharsets.UTF_8);
      int eq = kv.indexOf('=');
      if (eq <= 0) {
        throw new IOException("malformed environment entry in request: " + kv);
      }
      env.put(kv.substring(0, eq), kv.substring(eq + 1));
    }
    return new Request(env, body(data));
  }

  public static byte[] encodeResponse(int exitCode, byte[] stdout) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(stdout.length + 10);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.write(MAGIC);
      out.writeByte(VERSION);
      out.writeByte(exitCode);
      out.writeInt(stdout.length);
      out.write(stdout);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return bytes.toByteArray();
  }

  public static Response decodeResponse(InputStream in) throws IOException {
    DataInputStream data = new DataInputStream(in);
    header(data);
    int code = data.readUnsignedByte();
    return new Response(code, body(data));
  }

  private static void header(DataInputStream data) throws IOException {
    byte[] magic = data.readNBytes(4);
    if (magic.length < 4) {
      throw new EOFException("connection closed before a frame");
    }
    for (int i = 0; i < 4; i++) {
      if (magic[i] != MAGIC[i]) {
        throw new IOException("not a sart-cni frame (bad magic)");
      }
    }
    int version = data.readUnsignedByte();
    if (version != VERSION) {
      throw new IOException("sart-cni frame version " + version + ", expected " + VERSION);
    }
  }

  private static byte[] body(DataInputStream data) throws IOException {
    int length = data.readInt();
    if (length < 0 || length > MAX_BYTES) {
      throw new IOException("frame body of " + Integer.toUnsignedString(length) + " bytes");
    }
    byte[] b = data.readNBytes(length);
    if (b.length < length) {
      throw new EOFException("frame body truncated: " + b.length + " of " + length + " bytes");
    }
    return b;
  }

  /** The names of the CNI environment variables the plugin forwards (CNI spec §"Parameters"). */
  static List<String> cniVariables(Map<String, String> env) {
    List<String> names = new ArrayList<>();
    for (String k : env.keySet()) {
      if (k.startsWith("CNI_")) {
        names.add(k);
      }
    }
    names.sort(null);
    return names;
  }
}
