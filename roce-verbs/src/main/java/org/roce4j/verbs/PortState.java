package org.roce4j.verbs;

/**
 * Logical port states (enum ibv_port_state), with the libibverbs values as ordinals.
 */
public enum PortState
{
    /** IBV_PORT_NOP = 0. */
    NOP,
    /** IBV_PORT_DOWN = 1. */
    DOWN,
    /** IBV_PORT_INIT = 2. */
    INIT,
    /** IBV_PORT_ARMED = 3. */
    ARMED,
    /** IBV_PORT_ACTIVE = 4. */
    ACTIVE,
    /** IBV_PORT_ACTIVE_DEFER = 5. */
    ACTIVE_DEFER
}
