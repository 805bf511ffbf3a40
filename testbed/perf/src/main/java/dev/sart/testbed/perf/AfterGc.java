package dev.sart.testbed.perf;

import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a soak sample reads from sartd's JVM after a full collection: the heap's live bytes and
 * committed size, the JIT's compiled code and the JVM's arenas (native memory tracking's Java Heap,
 * Code and Arena Chunk), what the soak compares the RSS by ({@link Soak}).
 */
record AfterGc(long heapUsed, long heapCommitted, long code, long arenas) {
  // GC.class_histogram's last line: "Total        284512       21474836" (instances, bytes)
  private static final Pattern LIVE =
      Pattern.compile("^Total\\s+\\d+\\s+(\\d+)\\s*$", Pattern.MULTILINE);
  // its rows for the collector's fillers: "  12:     3   1944000  [Ljdk.internal.vm.FillerElement;"
  private static final Pattern FILLER =
      Pattern.compile(
          "^\\s*\\d+:\\s+\\d+\\s+(\\d+)\\s+\\S*jdk\\.internal\\.vm\\.Filler", Pattern.MULTILINE);

  /** {@code Compiler.queue} with nothing compiling and both queues empty. */
  private static final Pattern COMPILER_IDLE =
      Pattern.compile(
          "Current compiles:\\s*\\n\\s*\\nC1 compile queue:\\s*\\nEmpty\\s*\\n\\s*\\nC2 compile"
              + " queue:\\s*\\nEmpty");

  /**
   * Waits until the JVM {@code pid} compiles nothing (at most 10 s), runs a full collection in it
   * and trims its native heap, then reads its heap's live bytes and, from native memory tracking,
   * the heap's committed bytes and the bytes of compiled code and of arenas (the JDK's attach API,
   * as jcmd does).
   *
   * <p>The live bytes are the class histogram's total: it collects and walks the heap in one
   * safepoint. {@code GC.heap_info} after {@code GC.run} also counts what sartd's threads allocated
   * between the two commands (their new TLABs: up to 1.5 MiB either way, which failed CI's SoakTest
   * twice with no trend behind it; testbed/perf/LOG.md, 2026-11-27).
   */
  static AfterGc of(long pid) throws Exception {
    var vm = com.sun.tools.attach.VirtualMachine.attach(Long.toString(pid));
    try {
      // jcmd's own call; its class is not exported: the JVM runs with
      // --add-exports jdk.attach/sun.tools.attach=ALL-UNNAMED (bin/soak, the test's argLine)
      var jcmd =
          Class.forName("sun.tools.attach.HotSpotVirtualMachine")
              .getMethod("executeJCmd", String.class);
      // the cycle's last compilations done first: one of C2 holds up to ~15 MiB of arenas while it
      // runs, a step in the RSS that a sample taken then counted as a leak (testbed/perf/LOG.md,
      // 2026-12-02)
      long idleBy = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
      while (!COMPILER_IDLE.matcher(run(jcmd, vm, "Compiler.queue")).find()
          && System.nanoTime() < idleBy) {
        Thread.sleep(50);
      }
      String histogram = run(jcmd, vm, "GC.class_histogram");
      Matcher m = LIVE.matcher(histogram);
      if (!m.find()) {
        throw new IllegalStateException("no Total line in GC.class_histogram:\n" + histogram);
      }
      long live = Long.parseLong(m.group(1));
      for (Matcher f = FILLER.matcher(histogram); f.find(); ) {
        live -= Long.parseLong(f.group(1));
      }
      // glibc's free lists handed back (as the JVM does every 5 s on its own,
      // -XX:TrimNativeHeapInterval): the RSS read next does not depend on when the last trim
      // happened or on a compilation's arenas
      run(jcmd, vm, "System.trim_native_heap");
      String nmt = run(jcmd, vm, "VM.native_memory summary");
      return new AfterGc(
          live,
          committed(nmt, "Java Heap"),
          // the code heap and its malloc
          committed(nmt, "Code"),
          // the chunks of the JVM's arenas, in use or pooled (C2's compilations foremost)
          committed(nmt, "Arena Chunk"));
    } finally {
      vm.detach();
    }
  }

  /**
   * A category's committed bytes in native memory tracking's summary, from its line "- Code
   * (reserved=251908KB, committed=27754KB)".
   */
  private static long committed(String nmt, String category) {
    Matcher m =
        Pattern.compile(
                "^-\\s+" + Pattern.quote(category) + " \\(reserved=\\d+KB, committed=(\\d+)KB",
                Pattern.MULTILINE)
            .matcher(nmt);
    if (!m.find()) {
      throw new IllegalStateException(
          "no " + category + " line in VM.native_memory summary:\n" + nmt);
    }
    return Long.parseLong(m.group(1)) * 1024;
  }

  /** One diagnostic command's output ({@code jcmd}'s own call). */
  private static String run(java.lang.reflect.Method jcmd, Object vm, String command)
      throws Exception {
    try (var in = (java.io.InputStream) jcmd.invoke(vm, command)) {
      // transferTo, not readAllBytes: the attach stream's read at an offset near the end of
      // readAllBytes' 16 KiB buffer throws ArrayIndexOutOfBoundsException (JDK 25)
      var out = new java.io.ByteArrayOutputStream();
      in.transferTo(out);
      return out.toString(StandardCharsets.UTF_8);
    }
  }
}
