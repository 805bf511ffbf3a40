package dev.sart.cni;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;

/**
 * The plugin's Java runtime on the host: {@code BIN/sart-cni.jre} is a symbolic link to {@code
 * BIN/.sart-cni.jre-<digest>}, a complete copy of the image's runtime. A new runtime is copied
 * beside the old one under a temporary name, renamed to its final name once complete, and the link
 * is replaced by rename(2), so a plugin started at any moment finds either the old runtime or the
 * new one, whole. The digest is of the runtime's file names, sizes and modification times: the same
 * runtime installed again (a restarted init container) is not copied again.
 */
final class Runtimes {
  static final String PREFIX = "." + Installer.RUNTIME + "-";

  private Runtimes() {}

  static void install(Path src, Path binDir, PrintStream log) throws IOException {
    String name = PREFIX + digest(src);
    Path target = binDir.resolve(name);
    Path link = binDir.resolve(Installer.RUNTIME);
    Path previous = Files.isSymbolicLink(link) ? Files.readSymbolicLink(link) : null;
    if (!Files.isDirectory(target)) {
      Path tmp = binDir.resolve(name + ".tmp");
      deleteTree(tmp);
      copyTree(src, tmp);
      Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
      log.println("cni-installer: copied " + src + " to " + target);
    }
    if (!Path.of(name).equals(previous)) {
      if (Files.isDirectory(link, LinkOption.NOFOLLOW_LINKS)) {
        // an earlier layout (a plain directory): rename(2) cannot put a link over it
        Path aside = binDir.resolve(PREFIX + "replaced");
        deleteTree(aside);
        Files.move(link, aside, StandardCopyOption.ATOMIC_MOVE);
      }
      Path tmpLink = binDir.resolve("." + Installer.RUNTIME + ".link.tmp");
      Files.deleteIfExists(tmpLink);
      Files.createSymbolicLink(tmpLink, Path.of(name));
      Files.move(
          tmpLink, link, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      log.println("cni-installer: " + link + " -> " + name);
    }
    // keep the runtime in use and the one before it; older ones and leftovers go
    List<Path> gone = new ArrayList<>();
    try (DirectoryStream<Path> dir = Files.newDirectoryStream(binDir, PREFIX + "*")) {
      for (Path p : dir) {
        Path n = p.getFileName();
        if (!n.equals(Path.of(name)) && !n.equals(previous)) {
          gone.add(p);
        }
      }
    }
    for (Path p : gone) {
      deleteTree(p);
      log.println("cni-installer: removed " + p);
    }
  }

  static String digest(Path root) throws IOException {
    MessageDigest md;
    try {
      md = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    try (Stream<Path> files = Files.walk(root)) {
      for (Path p : files.sorted().toList()) {
        BasicFileAttributes a =
            Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        String line =
            root.relativize(p)
                + " "
                + a.size()
                + " "
                + a.lastModifiedTime().toMillis()
                + (Files.isExecutable(p) ? " x" : "")
                + "\n";
        md.update(line.getBytes(StandardCharsets.UTF_8));
      }
    }
    return HexFormat.of().formatHex(md.digest(), 0, 8);
  }

  private static void copyTree(Path src, Path dst) throws IOException {
    Files.walkFileTree(
        src,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes a)
              throws IOException {
            Files.createDirectories(dst.resolve(src.relativize(d).toString()));
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFile(Path f, BasicFileAttributes a) throws IOException {
            Files.copy(
                f,
                dst.resolve(src.relativize(f).toString()),
                StandardCopyOption.COPY_ATTRIBUTES,
                LinkOption.NOFOLLOW_LINKS);
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
            if (e != null) {
              throw e;
            }
            Path to = dst.resolve(src.relativize(d).toString());
            Files.setLastModifiedTime(to, Files.getLastModifiedTime(d));
            Files.setPosixFilePermissions(to, Files.getPosixFilePermissions(d));
            return FileVisitResult.CONTINUE;
          }
        });
  }

  static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    Files.walkFileTree(
        root,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult visitFile(Path f, BasicFileAttributes a) throws IOException {
            Files.delete(f);
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
            if (e != null) {
              throw e;
            }
            Files.delete(d);
            return FileVisitResult.CONTINUE;
          }
        });
  }
}
