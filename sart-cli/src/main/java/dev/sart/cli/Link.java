package dev.sart.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One link of an explanation chain: what was looked at, its state, a sentence saying what was
 * found, and for a broken link what to do. Links nest (a Service holds its addresses, an address
 * its nodes, a node its peers).
 */
final class Link {
  enum State {
    ok,
    broken,
    warning,
    skipped
  }

  final String kind;
  final String name;
  State state;
  String summary;
  String fix;
  final List<Link> children = new ArrayList<>();

  Link(String kind, String name, State state, String summary) {
    this.kind = kind;
    this.name = name;
    this.state = state;
    this.summary = summary;
  }

  static Link ok(String kind, String name, String summary) {
    return new Link(kind, name, State.ok, summary);
  }

  static Link broken(String kind, String name, String summary, String fix) {
    Link l = new Link(kind, name, State.broken, summary);
    l.fix = fix;
    return l;
  }

  Link add(Link child) {
    children.add(child);
    return child;
  }

  boolean isBroken() {
    return state == State.broken;
  }

  /** The first broken link, depth first (the chain is read top to bottom), or null. */
  Link firstBroken() {
    if (isBroken()) {
      return this;
    }
    for (Link c : children) {
      Link b = c.firstBroken();
      if (b != null) {
        return b;
      }
    }
    return null;
  }

  /** How many links of this subtree are in {@code s}. */
  long count(State s) {
    long n = state == s ? 1 : 0;
    for (Link c : children) {
      n += c.count(s);
    }
    return n;
  }

  String title() {
    return name == null || name.isEmpty() ? kind : kind + " " + name;
  }

  Map<String, Object> toMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("kind", kind);
    if (name != null) {
      m.put("name", name);
    }
    m.put("state", state.name());
    m.put("summary", summary);
    if (fix != null) {
      m.put("fix", fix);
    }
    if (!children.isEmpty()) {
      m.put("links", children.stream().map(Link::toMap).toList());
    }
    return m;
  }

  /** The whole explanation for {@code -o json|yaml}. */
  static Map<String, Object> document(Link root) {
    Map<String, Object> m = new LinkedHashMap<>();
    Link b = root.firstBroken();
    m.put("subject", root.title());
    m.put("result", b == null ? "ok" : "broken");
    if (b != null) {
      Map<String, Object> fb = new LinkedHashMap<>();
      fb.put("kind", b.kind);
      fb.put("name", b.name);
      fb.put("summary", b.summary);
      fb.put("fix", b.fix);
      m.put("firstBroken", fb);
    }
    m.put("chain", root.toMap());
    return m;
  }

  /** A readable tree, then the first broken link and what to do. */
  static void print(PrintWriter out, Link root) {
    print(out, root, "", "", true);
    Link b = root.firstBroken();
    out.println();
    if (b == null) {
      long unknown = root.count(State.warning);
      out.println(
          unknown == 0
              ? "every link holds"
              : "every link checked holds; " + unknown + " marked [? ] could not be told");
    } else {
      out.println("first broken link: " + b.title() + ": " + b.summary);
      if (b.fix != null) {
        out.println("what to do: " + b.fix);
      }
    }
    out.flush();
  }

  private static void print(
      PrintWriter out, Link l, String lead, String childLead, boolean unused) {
    out.println(lead + mark(l.state) + " " + l.title() + ": " + l.summary);
    String fixLead = childLead + (l.children.isEmpty() ? "      " : "│     ");
    if (l.fix != null && (l.isBroken() || l.state == State.warning)) {
      out.println(fixLead + "fix: " + l.fix);
    }
    for (int i = 0; i < l.children.size(); i++) {
      boolean last = i == l.children.size() - 1;
      print(
          out,
          l.children.get(i),
          childLead + (last ? "└─ " : "├─ "),
          childLead + (last ? "   " : "│  "),
          last);
    }
  }

  private static String mark(State s) {
    return switch (s) {
      case ok -> "[ok]";
      case broken -> "[!!]";
      case warning -> "[? ]";
      case skipped -> "[--]";
    };
  }
}
