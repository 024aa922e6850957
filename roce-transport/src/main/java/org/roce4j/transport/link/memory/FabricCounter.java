package org.roce4j.transport.link.memory;

/**
 * Per-port counters specific to the {@link MemoryFabric}: why the switch did not deliver a frame. Each is also
 * reflected in the generic {@link org.roce4j.transport.link.LinkCounter} named in its description, so readers that
 * only know {@link org.roce4j.transport.link.Link} still see every drop.
 *
 * <p>Counted on the port whose thread saw the event: the egress (sending) port for everything except
 * {@link #HOLD_OVERFLOW}, which the receiving port counts.
 */
public enum FabricCounter
{
    /** IP destination owned by no attached port, and no port's MAC as Ethernet destination (also
     * {@code SEND_UNRESOLVED}). */
    UNKNOWN_DESTINATION,
    /** Frames without an IP destination (ARP, other EtherTypes, truncated headers) whose Ethernet destination is no
     * port's MAC: ARP requests and other broadcasts end here (also {@code SEND_UNRESOLVED}). */
    NOT_ROUTABLE,
    /** IP packet larger than the MTU of the sending or the receiving port (also {@code SEND_ERRORS}). */
    OVERSIZE,
    /** The destination port's inbound ring was full: dropped like a congested switch queue (also
     * {@code SEND_BACK_PRESSURE}). */
    DESTINATION_FULL,
    /** A frame picked for reordering went out in order because every reorder slot of the port was busy. */
    REORDER_OVERFLOW,
    /** A delayed frame the receiving port dropped because its hold area was full (also {@code RECEIVE_ERRORS}). */
    HOLD_OVERFLOW
}
