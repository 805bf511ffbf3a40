package dev.sart.cni;

import java.nio.charset.StandardCharsets;

/**
 * The three top-level keys of the network configuration the plugin itself needs: {@code cniVersion}
 * (for its own errors and VERSION), and sart's {@code endpoint} and {@code timeout}. A hand-written
 * scanner over the top level of a JSON object: the plugin loads no JSON library (its start-up is on
 * every pod's path); the agent parses the whole configuration.
 *
 * @param cniVersion the configuration's cniVersion, or null
 * @param endpoint sart's {@code endpoint}: the agent's UNIX socket, or null
 * @param timeoutSeconds sart's {@code timeout} in seconds, or -1
 */
record Netconf(String cniVersion, String endpoint, double timeoutSeconds) {

  static final Netconf EMPTY = new Netconf(null, null, -1);

  /** Thrown on bytes that are not one JSON object. */
  static final class DecodeException extends Exception {
    private static final long serialVersionUID = 1L;

    DecodeException(String message) {
      super(message);
    }
  }

  static Netconf parse(byte[] bytes) throws DecodeException {
    Scanner s = new Scanner(new String(bytes, StandardCharsets.UTF_8));
    String version = null;
    String endpoint = null;
    double timeout = -1;
    s.ws();
    s.expect('{');
    s.ws();
    if (s.peek() == '}') {
      s.pos++;
    } else {
      while (true) {
        s.ws();
        String key = s.string();
        s.ws();
        s.expect(':');
        s.ws();
        switch (key) {
          case "cniVersion" -> version = s.peek() == '"' ? s.string() : s.skipValue(null);
          case "endpoint" -> {
            if (s.peek() != '"') {
              throw new DecodeException("\"endpoint\" must be a string");
            }
            endpoint = s.string();
          }
          case "timeout" -> {
            String v = s.skipValue(null);
            if (v == null || v.equals("true") || v.equals("false") || v.equals("null")) {
              throw new DecodeException("\"timeout\" must be a number of seconds");
            }
            try {
              timeout = Double.parseDouble(v);
            } catch (NumberFormatException e) {
              throw new DecodeException("\"timeout\" must be a number of seconds, not " + v);
            }
          }
          default -> s.skipValue(null);
        }
        s.ws();
        char c = s.next();
        if (c == '}') {
          break;
        }
        if (c != ',') {
          throw s.error("expected ',' or '}'");
        }
      }
    }
    s.ws();
    if (s.pos != s.text.length()) {
      throw s.error("trailing characters after the object");
    }
    return new Netconf(version, endpoint, timeout);
  }

  private static final class Scanner {
    final String text;
    int pos;

    Scanner(String text) {
      this.text = text;
    }

    DecodeException error(String what) {
      return new DecodeException(
          "network configuration is not valid JSON: " + what + " at offset " + pos);
    }

    char peek() throws DecodeException {
      if (pos >= text.length()) {
        throw error("unexpected end");
      }
      return text.charAt(pos);
    }

    char next() throws DecodeException {
      char c = peek();
      pos++;
      return c;
    }

    void expect(char c) throws DecodeException {
      if (next() != c) {
        pos--;
        throw error("expected '" + c + "'");
      }
    }

    void ws() {
      while (pos < text.length()) {
        char c = text.charAt(pos);
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
          return;
        }
        pos++;
      }
    }

    String string() throws DecodeException {
      expect('"');
      StringBuilder sb = new StringBuilder();
      while (true) {
        char c = next();
        if (c == '"') {
          return sb.toString();
        }
        if (c < 0x20) {
          throw error("control character in a string");
        }
        if (c != '\\') {
          sb.append(c);
          continue;
        }
        char e = next();
        switch (e) {
          case '"', '\\', '/' -> sb.append(e);
          case 'b' -> sb.append('\b');
          case 'f' -> sb.append('\f');
          case 'n' -> sb.append('\n');
          case 'r' -> sb.append('\r');
          case 't' -> sb.append('\t');
          case 'u' -> {
            if (pos + 4 > text.length()) {
              throw error("truncated \\u escape");
            }
            try {
              sb.append((char) Integer.parseInt(text, pos, pos + 4, 16));
            } catch (NumberFormatException ex) {
              throw error("bad \\u escape");
            }
            pos += 4;
          }
          default -> throw error("bad escape \\" + e);
        }
      }
    }

    /** Skips one value; returns the literal text of a number, true, false or null. */
    String skipValue(String unused) throws DecodeException {
      char c = peek();
      switch (c) {
        case '"' -> {
          string();
          return null;
        }
        case '{', '[' -> {
          char close = c == '{' ? '}' : ']';
          pos++;
          ws();
          if (peek() == close) {
            pos++;
            return null;
          }
          while (true) {
            ws();
            if (c == '{') {
              string();
              ws();
              expect(':');
              ws();
            }
            skipValue(null);
            ws();
            char d = next();
            if (d == close) {
              return null;
            }
            if (d != ',') {
              pos--;
              throw error("expected ',' or '" + close + "'");
            }
          }
        }
        default -> {
          int start = pos;
          while (pos < text.length() && "+-.0123456789eEtruefalsn".indexOf(text.charAt(pos)) >= 0) {
            pos++;
          }
          String literal = text.substring(start, pos);
          if (literal.isEmpty()
              || !(literal.equals("true")
                  || literal.equals("false")
                  || literal.equals("null")
                  || literal.matches("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?"))) {
            pos = start;
            throw error("unexpected value");
          }
          return literal;
        }
      }
    }
  }
}
