package org.roce4j.transport.engine;

import org.agrona.MutableDirectBuffer;
import org.roce4j.ib.AsyncEventType;
import org.roce4j.ib.QpState;
import org.roce4j.transport.TransportCounter;
import org.roce4j.transport.TransportCounters;
import org.roce4j.transport.link.FrameHandler;
import org.roce4j.transport.link.Link;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.FrameStatusCounters;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.Transport;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.header.BthHeader;
import org.roce4j.wire.header.DethHeader;

/**
 * The receive checks of every frame (rxe_recv.c), in rxe's order, before a packet reaches a role: parse (headers,
 * ICRC), destination GID (rxe_chk_dgid), QPN, transport against the QP type and QP state (check_type_state), P_Key
 * and Q_Key (check_keys), source and destination addresses of connected QPs (check_addr). Each failure drops the
 * frame and counts it under its own {@link TransportCounter}; frames the parser rejects are also counted per reason
 * in the {@link FrameStatusCounters}. A packet that passes goes, in place, to the {@link Responder} (requests) or the
 * {@link Completer} (responses); a request passes the notification point and a CNP goes to the reaction point
 * ({@link CongestionPoints}) first. A packet to the multicast QPN 0xFFFFFF goes to every QP attached to the group its
 * destination GID names ({@link McastTable}), each QP's type, state and keys checked on its own (rxe_rcv_mcast_pkt).
 */
final class ReceiveChecks implements FrameHandler
{
    /** P_Key bits that must match: the low 15; the high bit only says full or limited member (pkey_match). */
    private static final int PKEY_KEY_MASK = 0x7FFF;

    private final RoceEngine engine;
    private final Link link;
    private final LinkAddress linkAddress;
    private final GidTable gids;
    private final QpControl qps;
    private final McastTable mcast;
    private final TransportCounters counters;
    private final RoceFrameParser parser;
    private final Responder responder;
    private final Completer completer;
    private volatile Throwable lastInternalError;

    /**
     * @param engine        raises COMM_EST and owns the roles packets go to (built before this).
     * @param link          the medium (whether it verified the ICRC already).
     * @param gids          the port's GID table.
     * @param qps           the QP table.
     * @param mcast         the multicast groups.
     * @param frameCounters per-reason counts of frames the parser rejects.
     * @param rxeFlushIcrc  accept FLUSH requests carrying rxe's ICRC (EngineConfig.rxeFlushIcrc).
     */
    ReceiveChecks(
        final RoceEngine engine,
        final Link link,
        final GidTable gids,
        final QpControl qps,
        final McastTable mcast,
        final FrameStatusCounters frameCounters,
        final boolean rxeFlushIcrc)
    {
        this.engine = engine;
        this.link = link;
        this.linkAddress = link.address();
        this.gids = gids;
        this.qps = qps;
        this.mcast = mcast;
        this.counters = engine.counters();
        this.parser = new RoceFrameParser(frameCounters).acceptRxeFlushIcrc(rxeFlushIcrc);
        this.responder = engine.responder;
        this.completer = engine.completer;
    }

    /**
     * Receive one frame from the link (engine thread). An exception here is an engine bug, never wire input (wire
     * input is classified before it is used): the frame is dropped, counted as INTERNAL_ERRORS, and the engine keeps
     * running.
     *
     * @param buffer the frame's buffer (valid during this call).
     * @param offset where its Ethernet header starts.
     * @param length its length.
     */
    public void onFrame(final MutableDirectBuffer buffer, final int offset, final int length)
    {
        try
        {
            receive(buffer, offset, length);
        }
        catch (final RuntimeException ex)
        {
            counters.increment(TransportCounter.INTERNAL_ERRORS);
            lastInternalError = ex;
        }
    }

    /**
     * @return the last exception an engine bug raised while processing a frame, or null (any thread).
     */
    Throwable lastInternalError()
    {
        return lastInternalError;
    }

    /**
     * Check one frame and hand it to its QP's responder or completer, or drop and count it.
     *
     * @param buffer the frame's buffer (valid during this call).
     * @param offset where its Ethernet header starts.
     * @param length its length.
     */
    void receive(final MutableDirectBuffer buffer, final int offset, final int length)
    {
        final RoceFrameParser parser = this.parser;
        final FrameStatus status = parser.parse(buffer, offset, length, link.verifiesIcrc());
        if (FrameStatus.OK != status)
        {
            if (FrameStatus.BAD_ICRC == status)
            {
                counters.increment(TransportCounter.DROP_BAD_ICRC);
            }
            else if (!status.isNotRoce())
            {
                counters.increment(TransportCounter.DROP_MALFORMED_FRAME);
            }
            return;
        }
        if (parser.rxeFlushIcrc())
        {
            counters.increment(TransportCounter.RXE_FLUSH_ICRC);
        }
        // rxe_chk_dgid: the destination must be one of our GIDs or a multicast group.
        if (!isOurDestination(parser))
        {
            counters.increment(TransportCounter.DROP_NOT_OUR_GID);
            return;
        }
        final BthHeader bth = parser.bth();
        final int qpn = bth.destQp();
        final QpContext qp = qps.lookup(qpn);
        final Opcode opcode = parser.opcode();
        if (Transport.CNP == opcode.transport())
        {
            // A CNP (opcode 0x81) is for the reaction point, whatever the QP's type or state: handled or ignored and
            // counted, never an error (rxe drops it in check_type_state).
            engine.congestion.onCnp(qp, null != qp && !qp.destroyed &&
                (qp.type.isDatagram() || addressMatches(qp, parser)));
            return;
        }
        if (BthHeader.MULTICAST_QPN == qpn)
        {
            receiveMulticast(parser, opcode);
            return;
        }
        if (null == qp || qp.destroyed)
        {
            counters.increment(TransportCounter.DROP_NO_QP);
            return;
        }
        if (!passesQpChecks(qp, parser, opcode, qpn))
        {
            return;
        }
        if (Transport.UD != opcode.transport() && !addressMatches(qp, parser))
        {
            // rxe check_addr: RC/UC packets must come from the QP's peer to the QP's own address.
            counters.increment(TransportCounter.DROP_ADDRESS_MISMATCH);
            return;
        }
        deliver(qp, parser, opcode);
    }

    /**
     * rxe_rcv_mcast_pkt: the destination IP (an IPv4 one as its IPv4-mapped GID) names the group; every QP attached
     * to it gets the packet if its own type, state and keys accept it. A QP that does not is counted and skipped, the
     * others still get it ("unreliable datagram service ... try the rest of them on the list").
     */
    private void receiveMulticast(final RoceFrameParser parser, final Opcode opcode)
    {
        final McastTable.Group group = 4 == parser.ipVersion() ?
            mcast.lookup(Gid.IPV4_MAPPED_HIGH, Gid.ipv4MappedLow(parser.ipv4().destination())) :
            mcast.lookup(parser.ipv6().destinationHigh(), parser.ipv6().destinationLow());
        if (null == group)
        {
            counters.increment(TransportCounter.DROP_NO_MCAST_GROUP);
            return;
        }
        counters.increment(TransportCounter.MULTICAST_RCV_PACKETS);
        final QpContext[] attached = group.qps;
        for (int i = 0, count = group.count; i < count; i++)
        {
            final QpContext qp = attached[i];
            if (passesQpChecks(qp, parser, opcode, BthHeader.MULTICAST_QPN))
            {
                deliver(qp, parser, opcode);
            }
        }
    }

    /**
     * rxe check_type_state and check_keys for one QP; a failure is counted.
     *
     * @param qpn the packet's destination QPN (the GSI QP checks the GSI Q_Key).
     * @return true when the QP takes the packet.
     */
    private boolean passesQpChecks(
        final QpContext qp, final RoceFrameParser parser, final Opcode opcode, final int qpn)
    {
        // rxe check_type_state: the opcode's transport must be the QP's.
        if (opcode.transport() != qp.type.transport())
        {
            counters.increment(TransportCounter.DROP_WRONG_TRANSPORT);
            return false;
        }
        final QpState state = qp.state();
        if (opcode.isRequest() ? !acceptsRequests(state) : !acceptsResponses(state))
        {
            counters.increment(TransportCounter.DROP_WRONG_STATE);
            return false;
        }
        // rxe check_keys: P_Key must match the only P_Key, 0xFFFF (pkey_match: low 15 bits equal, one full member).
        if (PKEY_KEY_MASK != (parser.bth().pkey() & PKEY_KEY_MASK))
        {
            counters.increment(TransportCounter.DROP_BAD_PKEY);
            return false;
        }
        if (Transport.UD == opcode.transport())
        {
            final int expectedQkey = BthHeader.GSI_QPN == qpn ? DethHeader.GSI_QKEY : qp.attributes.qkey;
            if (parser.deth().qkey() != expectedQkey)
            {
                counters.increment(TransportCounter.DROP_BAD_QKEY);
                return false;
            }
        }
        return true;
    }

    private void deliver(final QpContext qp, final RoceFrameParser parser, final Opcode opcode)
    {
        counters.increment(TransportCounter.PACKETS_RECEIVED);
        // A frame for another QP ends the burst of the QP before it: its coalesced ACK leaves now.
        responder.onFrameFor(qp);
        if (opcode.isRequest())
        {
            if (QpState.RTR == qp.state() && !qp.commEstablished)
            {
                // First request on a QP still in RTR: IBA 11.6.3 "communication established" (raised once).
                qp.commEstablished = true;
                engine.raise(AsyncEventType.COMM_EST, qp.qpn);
            }
            engine.congestion.onRequest(qp, parser);
            responder.onRequest(qp, parser);
        }
        else
        {
            completer.onResponse(qp, parser);
        }
    }

    private static boolean acceptsRequests(final QpState state)
    {
        return QpState.RTR == state || QpState.RTS == state || QpState.SQD == state || QpState.SQE == state;
    }

    private static boolean acceptsResponses(final QpState state)
    {
        return QpState.RTS == state || QpState.SQD == state;
    }

    /**
     * rxe_chk_dgid: one of our GIDs, or any multicast address (rdma_is_multicast_addr); whether a QP joined that
     * group is decided later.
     */
    private boolean isOurDestination(final RoceFrameParser parser)
    {
        if (4 == parser.ipVersion())
        {
            final int destination = parser.ipv4().destination();
            return linkAddress.ownsIpv4(destination) || Gid.isIpv4Multicast(destination);
        }
        final long high = parser.ipv6().destinationHigh();
        return gids.contains(high, parser.ipv6().destinationLow()) || Gid.isMulticast(high);
    }

    private static boolean addressMatches(final QpContext qp, final RoceFrameParser parser)
    {
        final AddressVector av = qp.address;
        if (4 == parser.ipVersion())
        {
            return !av.ipv6() && parser.ipv4().source() == av.destinationIpv4() &&
                parser.ipv4().destination() == av.sourceIpv4();
        }
        return av.ipv6() && parser.ipv6().sourceHigh() == av.destinationHigh() &&
            parser.ipv6().sourceLow() == av.destinationLow() && parser.ipv6().destinationHigh() == av.sourceHigh() &&
            parser.ipv6().destinationLow() == av.sourceLow();
    }
}
