package dev.sart.controller.lb;

/** A Service port as it occupies a shared address: protocol and port number. */
public record Port(String protocol, int port) {
  public Port {
    protocol = protocol == null ? "TCP" : protocol;
  }
}
