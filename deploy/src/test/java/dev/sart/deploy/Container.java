package dev.sart.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sart.testbed.Programs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One container of a rendered pod template, run from the image's root file system the way a
 * container runtime runs it, without one: its command and args after the kubelet's {@code $(VAR)}
 * substitution, its environment over the image's, its user, a mount and PID namespace of its own
 * with {@code /proc}, a small {@code /dev} and the host's {@code /etc/hosts} and {@code
 * /etc/resolv.conf}, a tmpfs for each {@code emptyDir}, a read-only root when {@code
 * readOnlyRootFilesystem} says so, and exactly the capabilities its {@code securityContext} adds:
 * every other one is dropped from the bounding set (so no exec can bring it back), and {@code
 * allowPrivilegeEscalation: false} sets no_new_privs. The network namespace is the caller's (a
 * node's, for a {@code hostNetwork} pod).
 *
 * <p>{@link #argv} is a host command line: {@code unshare} makes the namespaces, a shell script
 * makes the mounts, and {@code capsh} enters the root ({@code chroot(2)}, which needs {@code
 * CAP_SYS_CHROOT}: that is why the drop comes after it, inside one program), drops the rest and
 * execs the container's command with the image's {@code /bin/sh}.
 */
final class Container {
  /** linux/capability.h: a capability's number is its index here. */
  private static final List<String> CAPABILITIES =
      List.of(
          "CHOWN",
          "DAC_OVERRIDE",
          "DAC_READ_SEARCH",
          "FOWNER",
          "FSETID",
          "KILL",
          "SETGID",
          "SETUID",
          "SETPCAP",
          "LINUX_IMMUTABLE",
          "NET_BIND_SERVICE",
          "NET_BROADCAST",
          "NET_ADMIN",
          "NET_RAW",
          "IPC_LOCK",
          "IPC_OWNER",
          "SYS_MODULE",
          "SYS_RAWIO",
          "SYS_CHROOT",
          "SYS_PTRACE",
          "SYS_PACCT",
          "SYS_ADMIN",
          "SYS_BOOT",
          "SYS_NICE",
          "SYS_RESOURCE",
          "SYS_TIME",
          "SYS_TTY_CONFIG",
          "MKNOD",
          "LEASE",
          "AUDIT_WRITE",
          "AUDIT_CONTROL",
          "SETFCAP",
          "MAC_OVERRIDE",
          "MAC_ADMIN",
          "SYSLOG",
          "WAKE_ALARM",
          "BLOCK_SUSPEND",
          "AUDIT_READ",
          "PERFMON",
          "BPF",
          "CHECKPOINT_RESTORE");

  private static final Pattern VAR = Pattern.compile("\\$\\(([A-Za-z_][A-Za-z0-9_]*)\\)");

  private final ImageRoot image;
  private final JsonNode pod;
  private final JsonNode container;
  private final Map<String, String> fields = new HashMap<>();
  private final Map<String, String> extraEnv = new LinkedHashMap<>();
  private final Map<String, Path> volumes = new HashMap<>();
  private final List<String[]> extraMounts = new ArrayList<>();

  private Container(ImageRoot image, JsonNode pod, JsonNode container) {
    this.image = image;
    this.pod = pod;
    this.container = container;
  }

  /** The container named {@code name} of the pod template of {@code workload}. */
  static Container of(ImageRoot image, JsonNode workload, String name) {
    JsonNode pod = workload.path("spec").path("template").path("spec");
    for (String list : List.of("initContainers", "containers")) {
      for (JsonNode c : pod.path(list)) {
        if (c.path("name").asText().equals(name)) {
          return new Container(image, pod, c);
        }
      }
    }
    throw new AssertionError("no container " + name + " in " + Manifests.name(workload));
  }

  /** The value the kubelet gives a {@code fieldRef} ({@code spec.nodeName}, ...). */
  Container field(String path, String value) {
    fields.put(path, value);
    return this;
  }

  /** An environment variable the test adds (after the container's own). */
  Container env(String name, String value) {
    extraEnv.put(name, value);
    return this;
  }

  /** What the kubelet would mount for the pod volume {@code name} (a Secret's files, ...). */
  Container volume(String name, Path hostDir) {
    volumes.put(name, hostDir);
    return this;
  }

  /** A read-only bind mount the test adds, e.g. a kubeconfig standing for the ServiceAccount's. */
  Container mount(Path hostDir, String path) {
    extraMounts.add(new String[] {hostDir.toString(), path});
    return this;
  }

  JsonNode securityContext() {
    return container.path("securityContext");
  }

  /** The capabilities the container gets: those its securityContext adds (it must drop ALL). */
  Set<String> capabilities() {
    JsonNode caps = securityContext().path("capabilities");
    List<String> drop = new ArrayList<>();
    caps.path("drop").forEach(d -> drop.add(d.asText()));
    assertEquals(
        List.of("ALL"), drop, container.path("name").asText() + " drops every capability first");
    Set<String> add = new TreeSet<>();
    caps.path("add").forEach(a -> add.add(a.asText()));
    assertTrue(CAPABILITIES.containsAll(add), "known capabilities: " + add);
    return add;
  }

  /** The capability mask {@code /proc/PID/status} shows for a set of names. */
  static long mask(Set<String> names) {
    long m = 0;
    for (String n : names) {
      m |= 1L << CAPABILITIES.indexOf(n);
    }
    return m;
  }

  /** The container's environment: the image's, then the container's env, then the test's. */
  Map<String, String> environment() {
    Map<String, String> env = new LinkedHashMap<>();
    for (JsonNode e : image.config().path("Env")) {
      String kv = e.asText();
      env.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
    }
    for (JsonNode e : container.path("env")) {
      String field = e.path("valueFrom").path("fieldRef").path("fieldPath").asText(null);
      String value;
      if (field != null) {
        value = fields.get(field);
        assertTrue(value != null, "the test gives a value for the fieldRef " + field);
      } else {
        assertTrue(!e.has("valueFrom"), "only fieldRef values are supported here: " + e);
        value = substitute(e.path("value").asText(""), env);
      }
      env.put(e.path("name").asText(), value);
    }
    env.putAll(extraEnv);
    return env;
  }

  /** The command and args, after the kubelet's {@code $(VAR)} substitution. */
  List<String> command() {
    Map<String, String> env = environment();
    List<String> argv = new ArrayList<>();
    JsonNode command = container.path("command");
    if (command.isEmpty()) {
      image.config().path("Entrypoint").forEach(a -> argv.add(a.asText()));
    } else {
      command.forEach(a -> argv.add(substitute(a.asText(), env)));
    }
    container.path("args").forEach(a -> argv.add(substitute(a.asText(), env)));
    return argv;
  }

  private static String substitute(String s, Map<String, String> env) {
    Matcher m = VAR.matcher(s);
    return m.replaceAll(r -> Matcher.quoteReplacement(env.getOrDefault(r.group(1), r.group())));
  }

  private long user(String key, int configIndex) {
    JsonNode sc = securityContext();
    if (sc.has(key)) {
      return sc.get(key).asLong();
    }
    if (pod.path("securityContext").has(key)) {
      return pod.path("securityContext").get(key).asLong();
    }
    return Long.parseLong(image.config().path("User").asText("0:0").split(":")[configIndex]);
  }

  /**
   * The host command line that runs the container; {@code scratch} is a directory for the script.
   * Run it inside the pod's network namespace ({@code Node.spawn}).
   */
  List<String> argv(Path scratch) {
    Path root = image.root();
    long uid = user("runAsUser", 0);
    long gid = user("runAsGroup", 1);
    List<String> drop = new ArrayList<>();
    Set<String> keep = capabilities();
    for (int i = 0; i < CAPABILITIES.size(); i++) {
      if (!keep.contains(CAPABILITIES.get(i))) {
        drop.add(Integer.toString(i));
      }
    }
    StringBuilder s = new StringBuilder("set -eu\n");
    s.append("R=").append(quote(root.toString())).append('\n');
    // the mounts below stay in this mount namespace (unshare makes it private)
    s.append("mount --bind \"$R\" \"$R\"\n");
    s.append("mkdir -p \"$R/proc\" \"$R/dev\" \"$R/etc\"\n");
    s.append("mount -t proc proc \"$R/proc\"\n");
    s.append("mount -t tmpfs -o mode=755,size=64k dev \"$R/dev\"\n");
    s.append("for d in null zero full random urandom tty; do\n");
    s.append("  touch \"$R/dev/$d\"; mount --bind \"/dev/$d\" \"$R/dev/$d\"\n");
    s.append("done\n");
    for (String f : List.of("/etc/hosts", "/etc/resolv.conf")) {
      s.append("touch \"$R").append(f).append("\"; ");
      s.append("mount --bind ").append(f).append(" \"$R").append(f).append("\"\n");
    }
    Map<String, JsonNode> podVolumes = new HashMap<>();
    pod.path("volumes").forEach(v -> podVolumes.put(v.path("name").asText(), v));
    for (JsonNode m : container.path("volumeMounts")) {
      String name = m.path("name").asText();
      String path = "\"$R" + m.path("mountPath").asText() + "\"";
      JsonNode v = podVolumes.get(name);
      assertTrue(v != null, "volume " + name + " is in the pod");
      s.append("mkdir -p ").append(path).append('\n');
      if (v.has("emptyDir")) {
        s.append("mount -t tmpfs -o mode=1777 ").append(name).append(' ').append(path).append('\n');
      } else {
        Path host = volumes.get(name);
        assertTrue(host != null, "the test provides the volume " + name + ": " + v);
        bind(s, host.toString(), path, m.path("readOnly").asBoolean(v.has("secret")));
      }
    }
    for (String[] m : extraMounts) {
      s.append("mkdir -p \"$R").append(m[1]).append("\"\n");
      bind(s, m[0], "\"$R" + m[1] + "\"", true);
    }
    if (securityContext().path("readOnlyRootFilesystem").asBoolean()) {
      s.append("mount -o remount,bind,ro \"$R\"\n");
    }
    List<String> env = new ArrayList<>();
    environment().forEach((k, v) -> env.add(quote(k + "=" + v)));
    s.append("exec env -i ").append(String.join(" ", env));
    s.append(' ').append(Programs.locate("capsh").orElseThrow()).append(" --chroot=\"$R\"");
    s.append(" --drop=").append(String.join(",", drop));
    if (!securityContext().path("allowPrivilegeEscalation").asBoolean(true)) {
      s.append(" --no-new-privs");
    }
    if (uid != 0 || gid != 0) {
      s.append(" --gid=").append(gid).append(" --groups=").append(gid);
      s.append(" --uid=").append(uid);
    }
    s.append(" --shell=/bin/sh -- -c 'cd / && exec \"$@\"' container");
    for (String a : command()) {
      s.append(' ').append(quote(a));
    }
    s.append('\n');
    try {
      Files.createDirectories(scratch);
      Path script = scratch.resolve("container-" + container.path("name").asText() + ".sh");
      Files.writeString(script, s);
      return List.of(
          "unshare", "--mount", "--pid", "--fork", "--kill-child", "sh", script.toString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void bind(StringBuilder s, String host, String path, boolean readOnly) {
    s.append("mount --bind ").append(quote(host)).append(' ').append(path).append('\n');
    if (readOnly) {
      s.append("mount -o remount,bind,ro ").append(path).append('\n');
    }
  }

  private static String quote(String s) {
    return "'" + s.replace("'", "'\\''") + "'";
  }
}
