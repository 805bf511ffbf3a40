package dev.sart.bgp.fsm;

/** The six states of the BGP finite state machine, RFC 4271 §8.2.2. */
public enum State {
  IDLE,
  CONNECT,
  ACTIVE,
  OPEN_SENT,
  OPEN_CONFIRM,
  ESTABLISHED
}
