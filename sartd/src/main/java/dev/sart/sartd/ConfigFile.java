package dev.sart.sartd;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.deser.DeserializationProblemHandler;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A YAML (or JSON) configuration file read into a record, with the line of every key kept, so that
 * every mistake, found by the parser or by the checks after it, is reported as {@code file:line:
 * what is wrong and what is allowed} ({@link ConfigException}).
 *
 * <p>Checks that run on the record name the key they reject with a path in front of their message
 * ({@code "neighbors[1].address: ..."}); {@link #check} turns that path into the line.
 */
final class ConfigFile<T> {
  /** A key path at the start of a check's message: {@code a.b[2].c: }. */
  private static final Pattern PATH =
      Pattern.compile(
          "^([A-Za-z_][A-Za-z0-9_-]*(?:\\[\\d+\\])*(?:\\.[A-Za-z0-9_-]+(?:\\[\\d+\\])*)*): ");

  private final Path file;
  private final T value;
  private final Map<String, Integer> lines;
  private final List<String> ignored;

  private ConfigFile(Path file, T value, Map<String, Integer> lines) {
    this(file, value, lines, List.of());
  }

  private ConfigFile(Path file, T value, Map<String, Integer> lines, List<String> ignored) {
    this.file = file;
    this.value = value;
    this.lines = lines;
    this.ignored = List.copyOf(ignored);
  }

  /**
   * The keys a lenient read skipped, each as {@code file:line: key 'k' ... ignored}: sart accepts
   * and ignores keys it does not know, and so does a file read with {@link #readLenient}.
   */
  List<String> ignored() {
    return ignored;
  }

  Path file() {
    return file;
  }

  T value() {
    return value;
  }

  /** Reads {@code file} (YAML, or JSON, which is YAML too) into {@code type}; unknown keys fail. */
  static <T> ConfigFile<T> read(Path file, Class<T> type) {
    return read(file, type, false);
  }

  /**
   * Reads a file written for sart, which ignores keys it does not know: an unknown key is skipped
   * and listed in {@link #ignored()}, unless it is one or two letters away from a known key (a
   * typo), which is an error that names the key meant.
   */
  static <T> ConfigFile<T> readLenient(Path file, Class<T> type) {
    return read(file, type, true);
  }

  private static <T> ConfigFile<T> read(Path file, Class<T> type, boolean lenient) {
    String text;
    try {
      text = Files.readString(file);
    } catch (NoSuchFileException e) {
      throw new ConfigException(file, 0, "no such file");
    } catch (IOException e) {
      throw new ConfigException(file, 0, "cannot read it: " + e.getMessage());
    }
    if (text.isBlank()) {
      throw new ConfigException(file, 1, "the file is empty");
    }
    ObjectMapper yaml =
        new ObjectMapper(new YAMLFactory())
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true)
            .configure(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES, true)
            .configure(DeserializationFeature.ACCEPT_FLOAT_AS_INT, false);
    List<String> ignoredKeys = new ArrayList<>();
    if (lenient) {
      yaml.addHandler(
          new DeserializationProblemHandler() {
            @Override
            public boolean handleUnknownProperty(
                DeserializationContext ctxt,
                JsonParser p,
                JsonDeserializer<?> deserializer,
                Object beanOrClass,
                String name)
                throws IOException {
              if (!Keys.suggestion(name, deserializer.getKnownPropertyNames()).isEmpty()) {
                return false; // a typo: the error names the key meant
              }
              // records are read from a buffer that has no locations: the key's path gives its line
              String parent = path(p.getParsingContext().getParent());
              ignoredKeys.add(parent.isEmpty() ? name : parent + "." + name);
              p.skipChildren();
              return true;
            }
          });
    }
    Map<String, Integer> lines;
    try {
      lines = lines(yaml.getFactory(), text);
    } catch (JsonProcessingException e) {
      throw new ConfigException(
          file, line(e.getLocation()), "not valid YAML: " + firstLine(e.getOriginalMessage()));
    } catch (IOException e) {
      throw new ConfigException(file, 0, firstLine(e.getMessage()));
    }
    try {
      T value = yaml.readValue(text, type);
      if (value == null) {
        throw new ConfigException(file, 1, "the file holds no settings");
      }
      List<String> ignored =
          ignoredKeys.stream()
              .sorted(java.util.Comparator.comparingInt((String k) -> lineOf(lines, k)))
              .map(
                  k -> {
                    int dot = k.lastIndexOf('.');
                    return file
                        + ":"
                        + lineOf(lines, k)
                        + ": "
                        + (dot < 0 ? "" : k.substring(0, dot) + ": ")
                        + "key '"
                        + k.substring(dot + 1)
                        + "' is not used by sartd: ignored";
                  })
              .toList();
      return new ConfigFile<>(file, value, lines, ignored);
    } catch (UnrecognizedPropertyException e) {
      String path = path(e);
      String parent =
          path.substring(0, Math.max(0, Math.max(path.lastIndexOf('.'), path.lastIndexOf('['))));
      throw new ConfigException(
          file,
          lineOf(lines, path),
          (parent.isEmpty() ? "" : parent + ": ")
              + "unknown key '"
              + e.getPropertyName()
              + "'"
              + Keys.suggestion(e.getPropertyName(), e.getKnownPropertyIds())
              + " (known here: "
              + Keys.list(e.getKnownPropertyIds())
              + ")");
    } catch (InvalidFormatException e) {
      throw at(
          file, lines, e, "'" + e.getValue() + "' is not " + Keys.article(e.getTargetType()) + "");
    } catch (MismatchedInputException e) {
      String what =
          e.getTargetType() == null
              ? e.getOriginalMessage().split("\n")[0]
              : "expected " + Keys.article(e.getTargetType());
      throw at(file, lines, e, what);
    } catch (JsonMappingException e) {
      throw at(file, lines, e, firstLine(e.getOriginalMessage()));
    } catch (JsonProcessingException e) {
      throw new ConfigException(
          file, line(e.getLocation()), "not valid YAML: " + firstLine(e.getOriginalMessage()));
    } catch (IOException e) {
      throw new ConfigException(file, 0, firstLine(e.getMessage()));
    }
  }

  /**
   * A mistake that another module's reader found in {@code file}, its message starting with the key
   * path: the same {@code file:line: what} as the files read here.
   */
  static ConfigException errorAt(Path file, String message) {
    try {
      String text = Files.readString(file);
      return new ConfigFile<>(file, null, lines(new YAMLFactory(), text)).error(message);
    } catch (IOException | RuntimeException e) {
      return new ConfigException(file, 0, message);
    }
  }

  /**
   * Runs the checks on the record: an {@link IllegalArgumentException} they throw becomes a {@link
   * ConfigException} at the line of the key path its message starts with (or of the nearest key
   * above it).
   */
  <R> R check(Function<T, R> checks) {
    try {
      return checks.apply(value);
    } catch (ConfigException e) {
      throw e;
    } catch (IllegalArgumentException e) {
      throw error(e.getMessage());
    }
  }

  /** A mistake found after parsing: "{@code path: what}" becomes file:line: path: what. */
  ConfigException error(String message) {
    Matcher m = PATH.matcher(message == null ? "" : message);
    int line = m.find() ? lineOf(m.group(1)) : 0;
    return new ConfigException(file, line, message);
  }

  /** The line of a key path, or of the nearest key above it that is in the file. */
  int lineOf(String path) {
    return lineOf(lines, path);
  }

  private static int lineOf(Map<String, Integer> lines, String path) {
    String p = path;
    while (!p.isEmpty()) {
      Integer l = lines.get(p);
      if (l != null) {
        return l;
      }
      int cut = Math.max(p.lastIndexOf('.'), p.lastIndexOf('['));
      p = cut < 0 ? "" : p.substring(0, cut);
    }
    return 0;
  }

  private static ConfigException at(
      Path file, Map<String, Integer> lines, JsonMappingException e, String what) {
    String path = path(e);
    int line = lineOf(lines, path);
    return new ConfigException(
        file, line > 0 ? line : line(e.getLocation()), path.isEmpty() ? what : path + ": " + what);
  }

  private static String path(JsonMappingException e) {
    StringBuilder sb = new StringBuilder();
    for (var ref : e.getPath()) {
      if (ref.getFieldName() != null) {
        sb.append(sb.isEmpty() ? "" : ".").append(ref.getFieldName());
      } else if (ref.getIndex() >= 0) {
        sb.append('[').append(ref.getIndex()).append(']');
      }
    }
    return sb.toString();
  }

  /** The path of a parsing context ({@code neighbors[0]}). */
  private static String path(com.fasterxml.jackson.core.JsonStreamContext c) {
    java.util.ArrayDeque<String> parts = new java.util.ArrayDeque<>();
    for (var x = c; x != null && !x.inRoot(); x = x.getParent()) {
      if (x.inArray()) {
        parts.push("[" + x.getCurrentIndex() + "]");
      } else if (x.getCurrentName() != null) {
        parts.push(
            (x.getParent() != null && !x.getParent().inRoot() ? "." : "") + x.getCurrentName());
      }
    }
    return String.join("", parts);
  }

  private static int line(JsonLocation l) {
    return l == null || l.getLineNr() < 0 ? 0 : l.getLineNr();
  }

  private static String firstLine(String s) {
    return s == null ? "" : s.split("\n")[0].strip();
  }

  /** The line of every key and array element, by path ({@code neighbors[0].address}). */
  private static Map<String, Integer> lines(JsonFactory factory, String text) throws IOException {
    Map<String, Integer> lines = new HashMap<>();
    Deque<Frame> open = new ArrayDeque<>();
    try (JsonParser p = factory.createParser(text)) {
      String key = "";
      for (JsonToken t = p.nextToken(); t != null; t = p.nextToken()) {
        int line = p.currentTokenLocation().getLineNr();
        if (t == JsonToken.END_OBJECT || t == JsonToken.END_ARRAY) {
          open.pop();
          continue;
        }
        if (t == JsonToken.FIELD_NAME) {
          String parent = open.isEmpty() ? "" : open.peek().path;
          key = parent.isEmpty() ? p.currentName() : parent + "." + p.currentName();
          lines.putIfAbsent(key, line);
          continue;
        }
        String here = key;
        if (!open.isEmpty() && open.peek().array) {
          here = open.peek().path + "[" + open.peek().next++ + "]";
          lines.putIfAbsent(here, line);
        }
        if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
          open.push(new Frame(here, t == JsonToken.START_ARRAY));
        }
      }
    }
    return lines;
  }

  /** An open mapping or list while reading the lines. */
  private static final class Frame {
    final String path;
    final boolean array;
    int next;

    Frame(String path, boolean array) {
      this.path = path;
      this.array = array;
    }
  }

  /** Names of keys, for messages. */
  static final class Keys {
    private Keys() {}

    static String list(java.util.Collection<Object> keys) {
      return String.join(", ", keys.stream().map(String::valueOf).sorted().toList());
    }

    /** ", did you mean 'x'?" for a key one or two edits away from a known one. */
    static String suggestion(String key, java.util.Collection<Object> known) {
      String best = null;
      int bestDistance = Integer.MAX_VALUE;
      for (Object k : known) {
        int d = distance(key.toLowerCase(Locale.ROOT), String.valueOf(k).toLowerCase(Locale.ROOT));
        if (d < bestDistance) {
          bestDistance = d;
          best = String.valueOf(k);
        }
      }
      return best != null && bestDistance <= 2 && bestDistance < key.length()
          ? ": did you mean '" + best + "'?"
          : "";
    }

    static String article(Class<?> type) {
      if (type == null) {
        return "a value";
      }
      if (type == Long.class || type == long.class || type == Integer.class || type == int.class) {
        return "a whole number";
      }
      if (type == Boolean.class || type == boolean.class) {
        return "true or false";
      }
      if (type == String.class) {
        return "a string";
      }
      if (java.util.List.class.isAssignableFrom(type)) {
        return "a list";
      }
      if (Map.class.isAssignableFrom(type) || type.isRecord()) {
        return "a mapping of keys";
      }
      return "a " + type.getSimpleName().toLowerCase(Locale.ROOT);
    }

    /** Levenshtein distance. */
    static int distance(String a, String b) {
      int[] prev = new int[b.length() + 1];
      int[] cur = new int[b.length() + 1];
      for (int j = 0; j <= b.length(); j++) {
        prev[j] = j;
      }
      for (int i = 1; i <= a.length(); i++) {
        cur[0] = i;
        for (int j = 1; j <= b.length(); j++) {
          int sub = prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
          cur[j] = Math.min(sub, Math.min(prev[j] + 1, cur[j - 1] + 1));
        }
        int[] t = prev;
        prev = cur;
        cur = t;
      }
      return prev[b.length()];
    }
  }
}
