# Prints a java.util.Properties file without its comment and blank lines: the same properties in
# fewer bytes. A line that continues a value (the line before ends in an odd number of
# backslashes) is kept whatever it starts with, as Properties.load reads it.
# Used by base.sh on sart-cni.jre's conf files, which the plugin parses at every forwarded call.
{
  if (!continued) {
    text = $0
    sub(/^[ \t\f]+/, "", text)
    if (text == "" || text ~ /^[#!]/) next
  }
  print
  backslashes = 0
  for (i = length($0); i > 0 && substr($0, i, 1) == "\\"; i--) backslashes++
  continued = backslashes % 2 == 1
}
