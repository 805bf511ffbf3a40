package dev.sart.cni;

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
    Scanner s = new Scanner(new String(bytes, Frame.UTF_8));
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
            timeout = number(v);
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

  /**
   * The value of a JSON number (RFC 8259 §6: {@code -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]?
   * [0-9]+)?}), or NaN when {@code s} is not one. By hand: a regular expression and {@code
   * Double.parseDouble} load ~35 classes (java.util.regex, jdk.internal.math) into the plugin's AOT
   * cache, which loads every class it holds at every start. Exact to a few units in the last place,
   * enough for a timeout in seconds.
   */
  static double number(String s) {
    int i = 0;
    int n = s.length();
    boolean negative = i < n && s.charAt(i) == '-';
    if (negative) {
      i++;
    }
    int intStart = i;
    long mantissa = 0;
    int scale = 0; // the value is mantissa * 10^scale
    int digits = 0;
    while (i < n && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
      if (digits < 18) {
        mantissa = mantissa * 10 + (s.charAt(i) - '0');
        digits += mantissa == 0 ? 0 : 1;
      } else {
        scale++;
      }
      i++;
    }
    if (i == intStart || (s.charAt(intStart) == '0' && i - intStart > 1)) {
      return Double.NaN;
    }
    if (i < n && s.charAt(i) == '.') {
      int fracStart = ++i;
      while (i < n && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
        if (digits < 18) {
          mantissa = mantissa * 10 + (s.charAt(i) - '0');
          digits += mantissa == 0 ? 0 : 1;
          scale--;
        }
        i++;
      }
      if (i == fracStart) {
        return Double.NaN;
      }
    }
    if (i < n && (s.charAt(i) == 'e' || s.charAt(i) == 'E')) {
      i++;
      boolean minus = i < n && s.charAt(i) == '-';
      if (i < n && (s.charAt(i) == '-' || s.charAt(i) == '+')) {
        i++;
      }
      int expStart = i;
      int exp = 0;
      while (i < n && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
        exp = Math.min(exp * 10 + (s.charAt(i) - '0'), 100_000);
        i++;
      }
      if (i == expStart) {
        return Double.NaN;
      }
      scale += minus ? -exp : exp;
    }
    if (i != n) {
      return Double.NaN;
    }
    double v = mantissa;
    for (; scale > 0 && v != 0 && v < Double.POSITIVE_INFINITY; scale--) {
      v *= 10;
    }
    for (; scale < 0 && v != 0; scale++) {
      v /= 10;
    }
    return negative ? -v : v;
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
                  || !Double.isNaN(number(literal)))) {
            pos = start;
            throw error("unexpected value");
          }
          return literal;
        }
      }
    }
  }
}
