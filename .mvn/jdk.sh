# Sourced by ./mvnw (and bin/*): makes JAVA_HOME point at a JDK 25 or newer.
# The machine's default `java` may be older (Debian 12 ships 17), so look in the usual places
# and fail with one line that says what to install when there is none.
sart_jdk_feature() {
  # prints the feature release (e.g. 25) of the JDK at $1, or nothing
  [ -x "$1/bin/javac" ] && [ -r "$1/release" ] || return 0
  sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$1/release"
}
sart_find_jdk() {
  # runs in a $(...) subshell: re-enabling globbing (mvnw runs with `set -f`) stays local
  set +f
  for c in "${JAVA_HOME-}" "${JAVA25_HOME-}" /usr/lib/jvm/* /opt/java/* /opt/jdk* /usr/local/lib/jvm/*; do
    [ -n "$c" ] && [ -d "$c" ] || continue
    v=$(sart_jdk_feature "$c")
    if [ -n "$v" ] && [ "$v" -ge 25 ]; then
      printf '%s\n' "$c"
      return 0
    fi
  done
  return 1
}
if SART_JDK=$(sart_find_jdk); then
  JAVA_HOME=$SART_JDK
  export JAVA_HOME
else
  echo "sart needs a JDK 25 or newer: install one (e.g. Temurin 25 into /usr/lib/jvm) or set JAVA_HOME to it." >&2
  exit 1
fi
