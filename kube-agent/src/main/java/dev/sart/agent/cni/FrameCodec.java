package dev.sart.agent.cni;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The agent's side of sart-cni's framing (DESIGN.md §8; the plugin's side is {@code
 * dev.sart.cni.Frame}, which loads nothing else), big-endian:
 *
 * <pre>
 * request  = "SCNI" u8 version(1) u16 count { u16 length, UTF-8 "NAME=VALUE" }*count  u32 length, netconf bytes
 * response = "SCNI" u8 version(1) u8 exit-code  u32 length, bytes for stdout
 * </pre>
 */
final class FrameCodec {
  static final byte[] MAGIC = {'S', 'C', 'N', 'I'};
  static final int VERSION = 1;
  static final int MAX_BYTES = 16 << 20;

  private FrameCodec() {}

  record Request(Map<String, String> env, byte[] stdin) {}

  static Request decodeRequest(InputStream in) throws IOException {
    DataInputStream data = new DataInputStream(in);
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
      throw new IOException("sart-cni frame version " + version + ", this agent speaks " + VERSION);
    }
    int count = data.readUnsignedShort();
    Map<String, String> env = new LinkedHashMap<>();
    for (int i = 0; i < count; i++) {
      int len = data.readUnsignedShort();
      byte[] kv = data.readNBytes(len);
      if (kv.length < len) {
        throw new EOFException("frame truncated in the environment");
      }
      String s = new String(kv, StandardCharsets.UTF_8);
      int eq = s.indexOf('=');
      if (eq <= 0) {
        throw new IOException("malformed environment entry: " + s);
      }
      env.put(s.substring(0, eq), s.substring(eq + 1));
    }
    int length = data.readInt();
    if (length < 0 || length > MAX_BYTES) {
      throw new IOException("netconf of " + Integer.toUnsignedString(length) + " bytes");
    }
    byte[] stdin = data.readNBytes(length);
    if (stdin.length < length) {
      throw new EOFException(
          "frame truncated in the netconf: " + stdin.length + " of " + length + " bytes");
    }
    return new Request(env, stdin);
  }

  static byte[] encodeResponse(int exitCode, byte[] stdout) {
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
}
