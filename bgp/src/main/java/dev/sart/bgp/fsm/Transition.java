package dev.sart.bgp.fsm;

import java.util.List;

/** The result of one FSM step: the next session state and the actions to perform, in order. */
public record Transition(Session next, List<Action> actions) {
  public Transition {
    actions = List.copyOf(actions);
  }
}
