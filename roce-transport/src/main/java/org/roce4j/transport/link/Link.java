package org.roce4j.transport.link;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * Moves Ethernet frames between a roce4j endpoint and a medium: the in-memory fabric, an Ethernet-over-UDP tunnel
 * to a QEMU guest, a kernel UDP socket, or a raw interface through libpcap.
 *
 * <p>The engine always deals in whole Ethernet frames (Ethernet, IPv4 or IPv6, UDP, BTH, ..., ICRC). A link owns
 * layer 2 for the set of addresses it owns ({@link #address()}): on send it fills in the destination MAC from its
 * neighbour table for the frame's destination IP (resolving it by ARP or IPv6 Neighbor Discovery where the medium
 * needs it, {@code link.ethernet}) and answers ARP and Neighbor Solicitations for its own addresses. A link that
 * cannot carry raw frames (the kernel UDP link) rewrites what the kernel will put on the wire and recomputes the ICRC
 * accordingly.
 *
 * <p>Links compose: {@code link.fault.FaultyLink} injects faults into any link, {@code link.capture.CaptureLink}
 * records every frame to a pcapng file and {@code link.capture.TraceLink} prints a line per frame; both see the frames
 * as they cross the medium through {@link #tapFrames(FrameTap)}.
 *
 * <p>Sending is claim/commit so a frame is built once, in place, in the link's own memory:
 * <pre>{@code
 * int index = link.tryClaim(maxLength);
 * if (index >= 0) { build into link.sendBuffer() at index; link.commit(index, actualLength); }
 * ...
 * link.flush();   // push committed frames to the medium, in batches where the medium allows
 * }</pre>
 *
 * <p>Threading: a link is driven by one thread at a time (the engine's agent, or the caller in invoker mode); it
 * is not thread safe, except {@link #counters()} which any thread may read, and {@link #close()}.
 */
public interface Link extends AutoCloseable
{
    /**
     * Largest IP MTU a link to a real network carries: a 9216-byte jumbo frame, the common maximum of Ethernet
     * switches and NICs (a loopback's 65536 is capped to it).
     */
    int MAX_IP_MTU = 9216;

    /**
     * @return a short name for logs and counters, e.g. {@code tunnel:127.0.0.1:7001}.
     */
    String name();

    /**
     * @return the link's own MAC and addresses; {@link LinkAddress#ipv4()} is its primary IPv4 address.
     */
    LinkAddress address();

    /**
     * @return the IP MTU of the medium (1500, 9000, ...); the device derives its active IB MTU from it as rxe
     *     does (largest IB MTU not above MTU minus the RoCEv2 header allowance).
     */
    int mtu();

    /**
     * @return true when received frames are the real bytes from the wire, so their ICRC can be verified; false for
     *     the kernel UDP link, whose frames are rebuilt around the UDP payload.
     */
    boolean verifiesIcrc();

    /**
     * Claim room for one outgoing frame in {@link #sendBuffer()}.
     *
     * @param maxLength the most bytes the frame will need.
     * @return index of the frame's first byte, or -1 when the link is full (back-pressure: flush, poll and retry).
     * @throws IllegalArgumentException when maxLength exceeds what the link can ever carry.
     */
    int tryClaim(int maxLength);

    /**
     * @return the buffer claimed frames are built in.
     */
    MutableDirectBuffer sendBuffer();

    /**
     * Finish a claimed frame; it will go out on the next {@link #flush()} (or earlier).
     *
     * @param index  returned by {@link #tryClaim(int)}.
     * @param length actual length of the frame, at most the claimed maximum.
     */
    void commit(int index, int length);

    /**
     * Give up a claim without sending anything.
     *
     * @param index returned by {@link #tryClaim(int)}.
     */
    void abort(int index);

    /**
     * Push committed frames to the medium.
     *
     * @return number of frames sent.
     */
    int flush();

    /**
     * Copy a whole frame in and commit it: for tools and tests that build frames elsewhere.
     *
     * @param frame  holding the frame.
     * @param offset of the Ethernet header.
     * @param length of the frame.
     * @return false when the link is full.
     */
    default boolean send(final DirectBuffer frame, final int offset, final int length)
    {
        final int index = tryClaim(length);
        if (index < 0)
        {
            return false;
        }
        sendBuffer().putBytes(index, frame, offset, length);
        commit(index, length);
        return true;
    }

    /**
     * Start resolving a neighbour's MAC ahead of traffic, as the kernel resolves the destination MAC when a QP gets
     * its address (ib_resolve_eth_dmac at modify-to-RTR), so the first packets do not wait for ARP. Links without
     * layer-2 resolution ignore it.
     *
     * @param ipv4 the neighbour's IPv4 address.
     */
    default void resolve(final int ipv4)
    {
    }

    /**
     * Start resolving an IPv6 neighbour's MAC ahead of traffic (by Neighbor Discovery), as {@link #resolve(int)}
     * does for IPv4. Links without layer-2 resolution ignore it.
     *
     * @param high 64 bits of the neighbour's address.
     * @param low  64 bits of the neighbour's address.
     */
    default void resolve(final long high, final long low)
    {
    }

    /**
     * Start receiving a multicast group's frames, as rxe_mcast_add puts the group's MAC on its netdev when the first
     * QP attaches (engine thread). Links whose medium hands them every group's frames (the memory fabric floods
     * them) need nothing, the default; the engine keeps the group table and drops what no QP joined.
     *
     * @param high 64 bits of the group's GID (IPv4-mapped for an IPv4 group).
     * @param low  64 bits of the group's GID.
     * @throws IllegalStateException when the link cannot receive the group, naming why.
     */
    default void joinGroup(final long high, final long low)
    {
    }

    /**
     * Stop receiving a group joined with {@link #joinGroup} (the last QP detached; rxe_mcast_del).
     *
     * @param high 64 bits of the group's GID.
     * @param low  64 bits of the group's GID.
     */
    default void leaveGroup(final long high, final long low)
    {
    }

    /**
     * Show every frame this link puts on or takes from its medium to a tap, as it crosses: outgoing frames as sent
     * (destination MAC filled in, rewritten as the kernel sends them), incoming frames as received (before any
     * filtering), and the link's own ARP and Neighbor Discovery frames. Called on the thread driving the link; taps
     * are added before traffic starts.
     *
     * @param tap what to show frames to.
     * @return false when this link cannot show its frames (the tap is not installed).
     */
    default boolean tapFrames(final FrameTap tap)
    {
        return false;
    }

    /**
     * Deliver received frames.
     *
     * @param handler   called once per frame.
     * @param maxFrames the most frames to deliver in this call.
     * @return number of frames delivered (0 when none was waiting).
     */
    int poll(FrameHandler handler, int maxFrames);

    /**
     * @return this link's counters.
     */
    LinkCounters counters();

    /**
     * Release the medium (sockets, handles, fabric ports). Idempotent.
     */
    void close();
}
