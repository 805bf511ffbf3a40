package dev.sart.crds;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * An estimate, in Java, of the static cost that kube-apiserver computes for each CEL rule of a CRD
 * when the CRD is created or updated (apiextensions-apiserver {@code validation.go}, cel-go {@code
 * checker/cost.go}, apiserver {@code pkg/cel/library/cost.go}). There is no Java implementation of
 * that estimator to depend on, so this one follows theirs for what sart's rules use and refuses
 * (throws) on anything it does not know, so a new kind of rule cannot slip through unestimated.
 *
 * <p>The model, as the API server's:
 *
 * <ul>
 *   <li>A rule's cost is its cost per evaluation times its cardinality: how often it can run for
 *       one object. The cardinality is the product of the {@code maxItems}/{@code maxProperties} of
 *       every list and map above the rule; if one of them is unbounded, it is the number of
 *       smallest values of the rule's schema that fit into one request: {@code 3 MiB / (minimum
 *       JSON size + 1)}. The minimum size of an object is {@code {}} plus its required properties.
 *   <li>A string's size is {@code maxLength × 4} (maxLength counts characters, the estimate bytes),
 *       the longest value of an {@code enum}, or else the whole request (3 MiB − 2). A list's size
 *       is its {@code maxItems}, or the request size over its items' minimum size.
 *   <li>Per evaluation: reading a variable or a field 1; {@code has()} the cost of its operand only
 *       (Kubernetes turns off the presence-test cost); a call 1 plus its arguments; {@code &&},
 *       {@code ||} the sum of both sides, {@code ?:} the condition plus the dearer branch; {@code
 *       ==}, {@code !=} and string comparisons {@code ⌈0.1 × smaller size⌉} plus the arguments;
 *       {@code isIP}, {@code isCIDR}, {@code ip(string)}, {@code cidr(string)} {@code ⌈0.1 × string
 *       size⌉} (a string traversal); the accessors {@code family()}, {@code prefixLength()}, {@code
 *       masked()}, {@code ip()} of a CIDR 1; {@code s.matches(re)} {@code ⌈0.1 × size of s⌉ × ⌈0.25
 *       × size of re⌉}.
 *   <li>Where ours is not the API server's, it is dearer: two objects compared with {@code ==} cost
 *       the traversal of all their strings and one per scalar (the API server charges 0), two
 *       parsed IPs/CIDRs the traversal of the strings they came from.
 * </ul>
 *
 * <p>Limits (apiextensions-apiserver): a rule may cost at most {@link #STATIC_ESTIMATED_COST_LIMIT}
 * (10,000,000; {@code StaticEstimatedCostLimit}), all rules of a CRD together {@link
 * #STATIC_ESTIMATED_CRD_COST_LIMIT} (100,000,000). {@link #PER_CALL_LIMIT} (1,000,000, {@code
 * PerCallLimit}) bounds one evaluation at run time. The old ClusterBGP schema's {@code isIP} rule
 * is 22 per evaluation × 1,048,576 (3 MiB / 3: a peerConfig's smallest form is {@code {}}) =
 * 23,068,672, "2.3x" the per-rule limit, which is what the API server said.
 */
final class CelCost {
  static final long MAX_REQUEST_SIZE = 3L * 1024 * 1024;
  static final long STATIC_ESTIMATED_COST_LIMIT = 10_000_000;
  static final long STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000;
  static final long PER_CALL_LIMIT = 1_000_000;
  static final double STRING_TRAVERSAL = 0.1;
  static final double REGEX_LENGTH = 0.25;

  /** One rule as it sits in the schema. */
  record Rule(
      String path,
      JsonNode validation,
      JsonNode schema,
      Long boundedCardinality,
      List<String> unboundedAbove) {
    String expression() {
      return validation.path("rule").asText();
    }

    long cardinality() {
      return boundedCardinality != null
          ? boundedCardinality
          : MAX_REQUEST_SIZE / (minSize(schema) + 1);
    }
  }

  /** The estimate of one rule: cost per evaluation, total, and the unbounded values it reads. */
  record Estimate(Rule rule, long perCall, long total, Set<String> unboundedReads) {
    /** As the API server words it: "exceeds budget by factor of 2.3x". */
    String factor() {
      double f = (double) total / STATIC_ESTIMATED_COST_LIMIT;
      return f > 100 ? "more than 100x" : String.format(java.util.Locale.ROOT, "%.1fx", f);
    }
  }

  /** Every rule of an {@code openAPIV3Schema}, with where it sits. */
  static List<Rule> rules(JsonNode root) {
    var out = new ArrayList<Rule>();
    walk(root, "", 1L, List.of(), out);
    return out;
  }

  private static void walk(
      JsonNode schema, String path, Long cardinality, List<String> unbounded, List<Rule> out) {
    for (var validation : schema.path("x-kubernetes-validations")) {
      out.add(
          new Rule(path.isEmpty() ? "<root>" : path, validation, schema, cardinality, unbounded));
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = schema.path("properties").fields();
        it.hasNext(); ) {
      var p = it.next();
      walk(p.getValue(), path + "." + p.getKey(), cardinality, unbounded, out);
    }
    if (schema.has("items")) {
      descend(
          schema.get("items"),
          path + "[*]",
          path,
          schema.get("maxItems"),
          cardinality,
          unbounded,
          out);
    }
    if (schema.path("additionalProperties").isObject()) {
      descend(
          schema.get("additionalProperties"),
          path + "[*]",
          path,
          schema.get("maxProperties"),
          cardinality,
          unbounded,
          out);
    }
  }

  private static void descend(
      JsonNode child,
      String childPath,
      String path,
      JsonNode max,
      Long cardinality,
      List<String> unbounded,
      List<Rule> out) {
    if (max == null) {
      var more = new ArrayList<>(unbounded);
      more.add(path);
      walk(child, childPath, null, more, out);
    } else {
      walk(
          child,
          childPath,
          cardinality == null ? null : cardinality * max.asLong(),
          unbounded,
          out);
    }
  }

  /** The smallest JSON an instance of the schema can be (apiserver {@code MinSerializedSize}). */
  static long minSize(JsonNode schema) {
    return switch (schema.path("type").asText()) {
      case "boolean" -> 4;
      case "integer", "number" -> 1;
      case "object" -> {
        long size = 2;
        var required = new TreeSet<String>();
        schema.path("required").forEach(r -> required.add(r.asText()));
        for (var name : required) {
          var prop = schema.path("properties").get(name);
          if (prop != null && !prop.has("default")) {
            size += name.length() + minSize(prop) + 4;
          }
        }
        yield size;
      }
      default -> 2; // "" or []
    };
  }

  static Estimate estimate(Rule rule) {
    var reads = new TreeSet<String>();
    var parser = new Parser(rule.expression(), rule.schema(), rule.path(), reads);
    long perCall = parser.parse().cost;
    long total = multiply(perCall, rule.cardinality());
    return new Estimate(rule, perCall, total, reads);
  }

  private static long multiply(long a, long b) {
    return (b != 0 && a > Long.MAX_VALUE / b) ? Long.MAX_VALUE : a * b;
  }

  private static long traversal(long size) {
    return (long) Math.ceil(size * STRING_TRAVERSAL);
  }

  // ---- types of values in an expression --------------------------------------------------

  private enum Kind {
    OBJECT,
    MAP,
    LIST,
    STRING,
    INT,
    DOUBLE,
    BOOL,
    IP,
    CIDR,
    NULL
  }

  /** A value's type; {@code schema} when it comes from the object, {@code size} its size. */
  private record Type(Kind kind, JsonNode schema, long size, String path) {}

  private record Value(long cost, Type type) {}

  /**
   * A recursive-descent parser of the CEL subset sart's rules use, computing the cost while it
   * parses. Anything else (macros other than {@code all}/{@code exists}, indexing, unknown
   * functions) throws.
   */
  private static final class Parser {
    private final String src;
    private final JsonNode self;
    private final String selfPath;
    private final Set<String> reads;
    private final Map<String, Type> vars = new java.util.HashMap<>();
    private int pos;

    Parser(String src, JsonNode self, String selfPath, Set<String> reads) {
      this.src = src;
      this.self = self;
      this.selfPath = selfPath;
      this.reads = reads;
    }

    Value parse() {
      var v = ternary();
      skip();
      if (pos != src.length()) {
        throw error("unexpected input");
      }
      return v;
    }

    private Value ternary() {
      var cond = or();
      if (eat("?")) {
        var a = ternary();
        expect(":");
        var b = ternary();
        return new Value(cond.cost + Math.max(a.cost, b.cost), a.type);
      }
      return cond;
    }

    private Value or() {
      var v = and();
      while (eat("||")) {
        var r = and();
        v = new Value(v.cost + r.cost, bool());
      }
      return v;
    }

    private Value and() {
      var v = relation();
      while (eat("&&")) {
        var r = relation();
        v = new Value(v.cost + r.cost, bool());
      }
      return v;
    }

    private Value relation() {
      var l = additive();
      for (var op : List.of("==", "!=", "<=", ">=", "<", ">")) {
        if (eat(op)) {
          var r = additive();
          long cost = l.cost + r.cost;
          if (op.equals("==") || op.equals("!=") || l.type.kind == Kind.STRING) {
            cost += traversal(Math.min(size(l.type), size(r.type)));
          } else {
            cost += 1;
          }
          return new Value(cost, bool());
        }
      }
      return l;
    }

    private Value additive() {
      var l = unary();
      while (true) {
        skip();
        if (peek('+') || (peek('-') && !peekAt(1, '>'))) {
          pos++;
          var r = unary();
          if (l.type.kind == Kind.STRING) {
            long size = size(l.type) + size(r.type);
            l =
                new Value(
                    l.cost + r.cost + traversal(size), new Type(Kind.STRING, null, size, null));
          } else {
            l = new Value(l.cost + r.cost + 1, l.type);
          }
        } else {
          return l;
        }
      }
    }

    private Value unary() {
      if (eat("!") || eat("-")) {
        var v = unary();
        return new Value(v.cost + 1, v.type);
      }
      return member(primary());
    }

    private Value member(Value v) {
      while (eat(".")) {
        var name = ident();
        if ((name.equals("all") || name.equals("exists")) && eat("(")) {
          v = comprehension(v);
        } else if (eat("(")) {
          var args = args();
          v = memberCall(v, name, args);
        } else {
          v = select(v, name);
        }
      }
      skip();
      if (peek('[')) {
        throw error("indexing is not estimated");
      }
      return v;
    }

    /**
     * {@code list.all(x, body)}, {@code list.exists(x, body)}: the list, then the body once per
     * item plus one per step (cel-go estimates the loop step cost likewise).
     */
    private Value comprehension(Value range) {
      if (range.type.kind != Kind.LIST) {
        throw error("comprehension over " + range.type.kind);
      }
      var name = ident();
      expect(",");
      var item = typeOf(range.type.schema.get("items"), range.type.path + "[*]");
      var previous = vars.put(name, item);
      var body = ternary();
      if (previous == null) {
        vars.remove(name);
      } else {
        vars.put(name, previous);
      }
      expect(")");
      return new Value(range.cost + multiply(size(range.type), body.cost + 1), bool());
    }

    private Value primary() {
      skip();
      if (eat("(")) {
        var v = ternary();
        expect(")");
        return v;
      }
      if (peek('\'') || peek('"')) {
        char quote = src.charAt(pos++);
        int start = pos;
        while (src.charAt(pos) != quote) {
          pos++;
        }
        long size = pos - start;
        pos++;
        return new Value(0, new Type(Kind.STRING, null, size, null));
      }
      if (Character.isDigit(src.charAt(pos))) {
        while (pos < src.length()
            && (Character.isDigit(src.charAt(pos)) || src.charAt(pos) == '.')) {
          pos++;
        }
        return new Value(0, new Type(Kind.INT, null, 1, null));
      }
      var name = ident();
      switch (name) {
        case "true", "false" -> {
          return new Value(0, bool());
        }
        case "null" -> {
          return new Value(0, new Type(Kind.NULL, null, 1, null));
        }
        case "self", "oldSelf" -> {
          return new Value(1, typeOf(self, selfPath));
        }
        case "has" -> {
          expect("(");
          var operand = primaryWithoutLastSelect();
          expect(")");
          return new Value(operand.cost, bool());
        }
        default -> {
          if (eat("(")) {
            return globalCall(name, args());
          }
          if (vars.containsKey(name)) {
            return new Value(1, vars.get(name));
          }
          throw error("unknown identifier " + name);
        }
      }
    }

    /** has(a.b.c): the cost of a.b (the presence test itself is free in Kubernetes). */
    private Value primaryWithoutLastSelect() {
      var v = primary();
      while (true) {
        skip();
        if (!peek('.')) {
          return v;
        }
        int save = pos;
        pos++;
        var name = ident();
        skip();
        if (peek(')')) {
          // the field whose presence is tested: not read
          return v;
        }
        pos = save + 1;
        v = select(v, ident());
      }
    }

    private List<Value> args() {
      var out = new ArrayList<Value>();
      if (eat(")")) {
        return out;
      }
      do {
        out.add(ternary());
      } while (eat(","));
      expect(")");
      return out;
    }

    private Value select(Value v, String name) {
      if (v.type.kind != Kind.OBJECT || v.type.schema == null) {
        throw error("select of " + name + " on " + v.type.kind);
      }
      var prop = v.type.schema.path("properties").get(name);
      if (prop == null) {
        throw error("no field " + name + " at " + v.type.path);
      }
      return new Value(v.cost + 1, typeOf(prop, v.type.path + "." + name));
    }

    private Value globalCall(String name, List<Value> args) {
      long argCost = args.stream().mapToLong(Value::cost).sum();
      return switch (name) {
        case "isIP", "isCIDR" -> new Value(argCost + traversal(size(args.get(0).type)), bool());
        case "ip", "cidr" -> {
          var arg = args.get(0).type;
          yield new Value(
              argCost + traversal(size(arg)),
              new Type(name.equals("ip") ? Kind.IP : Kind.CIDR, null, size(arg), arg.path));
        }
        case "size" -> new Value(argCost + 1, new Type(Kind.INT, null, 1, null));
        default -> throw error("function " + name + " is not estimated");
      };
    }

    private Value memberCall(Value target, String name, List<Value> args) {
      long cost = target.cost + args.stream().mapToLong(Value::cost).sum() + 1;
      return switch (name) {
        case "family", "prefixLength", "size" -> new Value(cost, new Type(Kind.INT, null, 1, null));
        case "masked" -> new Value(cost, target.type);
        case "ip" -> new Value(cost, new Type(Kind.IP, null, target.type.size, target.type.path));
        case "matches" -> {
          // cel-go checker/cost.go: the string traversed once per expression of the regex,
          // guessed as one per 4 characters of it (RegexStringLengthCostFactor 0.25)
          long regex = (long) Math.ceil(size(args.get(0).type) * REGEX_LENGTH);
          yield new Value(
              multiply(traversal(size(target.type)), regex)
                  + target.cost
                  + args.stream().mapToLong(Value::cost).sum(),
              bool());
        }
        default -> throw error("method " + name + " is not estimated");
      };
    }

    /** The size the estimator gives a value; unbounded sizes are recorded as reads. */
    private long size(Type t) {
      return switch (t.kind) {
        case STRING, LIST, MAP -> {
          if (t.schema != null && unbounded(t.schema)) {
            reads.add(t.path);
          }
          yield t.size;
        }
        case OBJECT -> objectSize(t.schema, t.path);
        case IP, CIDR -> t.size;
        default -> 1;
      };
    }

    /** Dearer than the API server (which charges 0): every string traversed, 1 per scalar. */
    private long objectSize(JsonNode schema, String path) {
      var t = typeOf(schema, path);
      return switch (t.kind) {
        case OBJECT -> {
          long sum = 0;
          for (Iterator<Map.Entry<String, JsonNode>> it = schema.path("properties").fields();
              it.hasNext(); ) {
            var p = it.next();
            sum += objectSize(p.getValue(), path + "." + p.getKey());
          }
          yield sum;
        }
        case LIST, MAP -> {
          size(t);
          var item = schema.has("items") ? schema.get("items") : schema.get("additionalProperties");
          yield multiply(t.size, objectSize(item, path + "[*]"));
        }
        case STRING -> size(t);
        default -> 1;
      };
    }

    private Type typeOf(JsonNode schema, String path) {
      return switch (schema.path("type").asText()) {
        case "object" -> {
          if (schema.path("additionalProperties").isObject()) {
            var value = schema.get("additionalProperties");
            long n =
                schema.has("maxProperties")
                    ? schema.get("maxProperties").asLong()
                    : (MAX_REQUEST_SIZE - 2) / (minSize(value) + 6);
            yield new Type(Kind.MAP, schema, n, path);
          }
          yield new Type(Kind.OBJECT, schema, 0, path);
        }
        case "array" -> {
          long n =
              schema.has("maxItems")
                  ? schema.get("maxItems").asLong()
                  : (MAX_REQUEST_SIZE - 2) / (minSize(schema.get("items")) + 1);
          yield new Type(Kind.LIST, schema, n, path);
        }
        case "string" -> {
          long n;
          if (schema.has("maxLength")) {
            n = schema.get("maxLength").asLong() * 4;
          } else if (schema.has("enum")) {
            n = 0;
            for (var e : schema.get("enum")) {
              n = Math.max(n, e.asText().length());
            }
          } else {
            n = MAX_REQUEST_SIZE - 2;
          }
          yield new Type(Kind.STRING, schema, n, path);
        }
        case "integer" -> new Type(Kind.INT, schema, 1, path);
        case "number" -> new Type(Kind.DOUBLE, schema, 1, path);
        case "boolean" -> new Type(Kind.BOOL, schema, 1, path);
        default -> throw error("schema type " + schema.path("type") + " at " + path);
      };
    }

    private static boolean unbounded(JsonNode schema) {
      return switch (schema.path("type").asText()) {
        case "string" -> !schema.has("maxLength") && !schema.has("enum");
        case "array" -> !schema.has("maxItems");
        case "object" ->
            schema.path("additionalProperties").isObject() && !schema.has("maxProperties");
        default -> false;
      };
    }

    private static Type bool() {
      return new Type(Kind.BOOL, null, 1, null);
    }

    private String ident() {
      skip();
      int start = pos;
      while (pos < src.length()
          && (Character.isLetterOrDigit(src.charAt(pos)) || src.charAt(pos) == '_')) {
        pos++;
      }
      if (start == pos) {
        throw error("identifier expected");
      }
      return src.substring(start, pos);
    }

    private boolean eat(String token) {
      skip();
      if (src.startsWith(token, pos)) {
        // "!" must not eat "!=", "<" not "<=", "=" never alone
        if ((token.equals("!") || token.equals("<") || token.equals(">"))
            && src.startsWith("=", pos + 1)) {
          return false;
        }
        if (token.equals("-") && pos + 1 < src.length() && src.charAt(pos + 1) == '>') {
          return false;
        }
        pos += token.length();
        return true;
      }
      return false;
    }

    private void expect(String token) {
      if (!eat(token)) {
        throw error("expected " + token);
      }
    }

    private boolean peek(char c) {
      return pos < src.length() && src.charAt(pos) == c;
    }

    private boolean peekAt(int offset, char c) {
      return pos + offset < src.length() && src.charAt(pos + offset) == c;
    }

    private void skip() {
      while (pos < src.length() && Character.isWhitespace(src.charAt(pos))) {
        pos++;
      }
    }

    private IllegalArgumentException error(String what) {
      return new IllegalArgumentException(
          "CEL rule at " + selfPath + " not estimated: " + what + " at " + pos + " in: " + src);
    }
  }
}
