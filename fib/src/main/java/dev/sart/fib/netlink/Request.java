package dev.sart.fib.netlink;

import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One rtnetlink request: its type and flags (NLM_F_REQUEST and the acknowledgement flags are added
 * when it is sent), what it does in words for error messages (computed only on failure), and a
 * writer for the family header and attributes after the {@code struct nlmsghdr}.
 */
record Request(int type, int flags, Supplier<String> description, Consumer<MessageWriter> body) {

  String describe() {
    return description.get();
  }
}
