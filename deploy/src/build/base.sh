#!/bin/sh
# Assembles the base of the sart image from files on the build machine, into ROOT (a directory Jib
# adds as the image's "extra files" layer on top of `scratch`):
#   /opt/java               a jlink'ed JDK runtime with the modules sartd and sart use (MODULES),
#                           with no CDS archive of its own: sartd and sart start from AOT caches
#   /opt/sart/cni           the sart-cni payload: launcher, jar, and its own jlink'ed java.base
#                           runtime (sart-cni.jre), which the CNI installer copies to the host
#   /lib, /lib64            the shared libraries those runtimes (and /bin/sh) link against (ldd)
#   /bin/sh                 dash: the launchers of sartd, sart and sart-cni are sh scripts
#   /usr/local/bin          (aot.sh writes the launchers of sartd and sart, with their AOT caches)
#   /etc/passwd, /etc/group root and the unprivileged user 65532 (nonroot) the image runs as
# Arguments: JAVA_HOME (a JDK 25 with jlink), ROOT, the sart-cni dist directory, sartd's jvm.options,
# the module's class directory (empty: this module has no code, but Jib wants the directory).
# The runtime is rebuilt only when the module list or the JDK changed (a stamp next to ROOT).
set -eu
java_home=$1 root=$2 cni_dist=$3 jvm_options=$4 classes=$5
mkdir -p "$classes"

# jdeps over sartd's and sart's class paths (README: "Modules"); java.desktop only for java.beans,
# which jackson-databind, snakeyaml and micrometer reach; java.net.http for fabric8's JDK HTTP client
# (ImageNodeTest: without it `sartd node` failed at its first API call).
MODULES=java.base,java.desktop,java.naming,java.net.http,java.sql,jdk.httpserver,jdk.jfr,jdk.management,jdk.unsupported
CNI_MODULES=java.base
CNI_TRIMMED="security/java.security net.properties"
JLINK_OPTS="--strip-debug --no-man-pages --no-header-files --compress=zip-6"
# No --generate-cds-archive: the AOT caches (aot.sh) are static archives holding the JDK's classes
# too, and a JVM given one does not open lib/server/classes.jsa; it would serve only an image built
# with -Dsart.aot.skip, for 13.7 MiB (3.9 MB gzip) in every image (deploy/README.md, "AOT cache").
# AWT's window-system and sound libraries: java.desktop ships them, nothing in sart loads them, and
# they would pull X11 and ALSA into the image.
UNUSED_LIBS="libawt_xawt.so libjawt.so libsplashscreen.so libjsound.so"

stamp="$root.stamp"
want="$java_home $MODULES $CNI_MODULES $JLINK_OPTS $UNUSED_LIBS trimmed: $CNI_TRIMMED"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x "$root/opt/java/bin/java" ]; then
  rebuilt=no
else
  rebuilt=yes
  rm -rf "$root" "$stamp"
  mkdir -p "$root/opt/sart/cni"
  # shellcheck disable=SC2086
  "$java_home/bin/jlink" $JLINK_OPTS --add-modules "$MODULES" --output "$root/opt/java"
  # shellcheck disable=SC2086
  "$java_home/bin/jlink" $JLINK_OPTS --add-modules "$CNI_MODULES" --output "$root/opt/sart/cni/sart-cni.jre"
  # The plugin parses these two at every forwarded call (the JDK's UNIX socket asks the security
  # providers for a SecureRandom, and reads net.properties): 72 and 7 KiB, nearly all comments,
  # read by the interpreter. Without the comments: the same properties (ImageTest), 2.5 ms less
  # CPU per ADD and DEL (kube-agent/README.md, "Benchmark"). The JDK's own copies document them.
  for f in $CNI_TRIMMED; do
    conf=$root/opt/sart/cni/sart-cni.jre/conf/$f
    { printf '# %s of the JDK without its comments (sart: deploy/src/build/base.sh)\n' "$f"
      awk -f "$(dirname "$0")/trim-properties.awk" "$conf"; } > "$conf.trimmed"
    mv "$conf.trimmed" "$conf"
  done
  for l in $UNUSED_LIBS; do rm -f "$root/opt/java/lib/$l"; done

  # the shared libraries: every ELF file of both runtimes and dash, through ldd
  mkdir -p "$root/bin" "$root/lib/x86_64-linux-gnu" "$root/lib64"
  cp /bin/dash "$root/bin/sh"
  libs=$(find "$root/opt" "$root/bin" -type f \( -name '*.so' -o -perm -u+x \) -exec sh -c \
    'for f; do case $(head -c4 "$f" | od -An -c | tr -d " ") in *ELF*) ldd "$f" ;; esac; done' sh {} + |
    awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\/lib64\// { print $1 }' | sort -u)
  for lib in $libs; do
    case $lib in
      "$root"/*) ;; # the runtimes' own libraries (found through their $ORIGIN run paths)
      /lib64/*) cp -L "$lib" "$root/lib64/" ;;
      *) cp -L "$lib" "$root/lib/x86_64-linux-gnu/" ;;
    esac
  done
  printf '%s\n' "$want" > "$stamp"
fi

# what changes with every build of the project: the launchers, sart-cni's files, /etc
mkdir -p "$root/usr/local/bin" "$root/etc" "$root/tmp" "$root/opt/sart"
grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$jvm_options" > "$root/opt/sart/sartd.jvm.options"
cp -p "$cni_dist/sart-cni" "$cni_dist/sart-veth" "$cni_dist/sart-router" "$cni_dist/sart-cni.jar" "$root/opt/sart/cni/"
printf 'root:x:0:0:root:/root:/bin/sh\nnonroot:x:65532:65532:nonroot:/home/nonroot:/bin/sh\n' > "$root/etc/passwd"
printf 'root:x:0:\nnonroot:x:65532:\n' > "$root/etc/group"
echo "base.sh: $root (runtime rebuilt: $rebuilt)"
