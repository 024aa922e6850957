package org.roce4j.cli.demo;

import java.nio.charset.StandardCharsets;

import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrameBuilder;
import org.roce4j.wire.Transport;
import org.roce4j.wire.header.AethHeader;
import org.roce4j.wire.header.BthHeader;
import org.roce4j.wire.header.DethHeader;
import org.roce4j.wire.header.FethHeader;
import org.roce4j.wire.mad.CmAttribute;
import org.roce4j.wire.mad.CmPath;
import org.roce4j.wire.mad.CmReqMessage;
import org.roce4j.wire.mad.CmaHeader;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.mad.MadHeader;
import org.roce4j.wire.mad.RdmaCmServiceId;

/**
 * Builds one frame of every opcode roce4j speaks with {@link RoceFrameBuilder}, told as a conversation between two
 * endpoints: RC SENDs (multi-packet, with immediate, with invalidate) and their ACK, RDMA WRITEs, an RDMA READ and
 * its response packets, a NAK and an RNR NAK, both atomics and their atomic ACKs, FLUSH and ATOMIC_WRITE with the
 * zero-length READ responses rxe answers them with, every UC opcode, UD SENDs, a CM ConnectRequest MAD to QP1 as
 * RDMA CM sends it, a CNP, and one frame each over IPv6 and inside an 802.1Q VLAN.
 *
 * <p>The frames are handed to a {@link FrameSink} one at a time in a single reused buffer. Every field is chosen
 * to look like real traffic (rxe-like UDP ports, AckReq on message ends, MSNs counting completed messages) so the
 * decoded output teaches the protocol. Nothing here touches the network.
 */
public final class OpcodeShowcase
{
    /** Path MTU of the demo conversation: 256 bytes, the smallest IB MTU, keeps multi-packet frames short. */
    public static final int MTU = 256;
    /** Q_Key of the demo UD QPs (the one ibv_ud_pingpong uses). */
    public static final int UD_QKEY = 0x1111_1111;
    /** First PSN of the requester's send queue. */
    public static final int FIRST_PSN = 0x00_1000;
    /** RDMA CM port the demo REQ asks for (rping's default, 7174). */
    public static final int RDMA_CM_PORT = 7174;
    /** VLAN of the tagged frame, with PCP 3, the priority RoCE traffic usually gets for PFC. */
    public static final int VLAN_ID = 100;
    /** Priority code point of the tagged frame. */
    public static final int VLAN_PCP = 3;
    /** The RoCEv2 CNP is sent from UDP source port 0 by ConnectX NICs (IBA A17.9.3 leaves it free). */
    public static final int CNP_SOURCE_PORT = 0;

    private static final long REMOTE_VA = 0x0000_7f00_1234_0000L;
    private static final int RKEY = 0x0000_1a2b;
    private static final int READ_LENGTH = 2 * MTU + 88;
    private static final int WRITE_LENGTH = 2 * MTU + 40;
    private static final int SEND_LENGTH = 2 * MTU + 100;
    /** RNR timer code of the demo RNR NAK: 14 means 1.28 ms (IBA table 46). */
    private static final int RNR_TIMER_CODE = 14;

    /**
     * Receives each built frame.
     */
    @FunctionalInterface
    public interface FrameSink
    {
        /**
         * @param description what the frame shows, e.g. "RC SEND: first packet of a 612-byte message".
         * @param buffer      holding the frame; reused for the next frame, so copy what must outlive the call.
         * @param offset      of the Ethernet header.
         * @param length      of the frame, ICRC included.
         */
        void frame(String description, MutableDirectBuffer buffer, int offset, int length);
    }

    private final DemoEndpoint requester;
    private final DemoEndpoint responder;
    private final UnsafeBuffer frame = new UnsafeBuffer(new byte[2048]);
    private final UnsafeBuffer payload = new UnsafeBuffer(new byte[1024]);
    private final RoceFrameBuilder builder = new RoceFrameBuilder();
    private final MadHeader mad = new MadHeader();
    private final CmReqMessage req = new CmReqMessage();
    private final CmaHeader cma = new CmaHeader();

    private FrameSink sink;
    private int frames;
    private int psn;
    private int msn;
    private Opcode pendingRequest;
    private boolean notCompleted;

    /**
     * A showcase between {@link DemoEndpoint#A} (requester) and {@link DemoEndpoint#B} (responder).
     */
    public OpcodeShowcase()
    {
        this(DemoEndpoint.A, DemoEndpoint.B);
    }

    /**
     * @param requester sends the requests.
     * @param responder answers them.
     */
    public OpcodeShowcase(final DemoEndpoint requester, final DemoEndpoint responder)
    {
        this.requester = requester;
        this.responder = responder;
        final byte[] text = ("roce4j demo: every byte of this payload travels inside a RoCEv2 packet. ")
            .getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < payload.capacity(); i++)
        {
            payload.putByte(i, text[i % text.length]);
        }
    }

    /**
     * Build every frame in conversation order.
     *
     * @param sink receives each frame.
     * @return the number of frames built.
     */
    public int build(final FrameSink sink)
    {
        this.sink = sink;
        frames = 0;
        psn = FIRST_PSN;
        msn = 0;
        pendingRequest = null;
        notCompleted = false;
        rcSends();
        rcWrites();
        rcRead();
        rcErrors();
        rcAtomics();
        rcFlushAndAtomicWrite();
        ucAll();
        udAll();
        cmConnectRequest();
        cnp();
        otherEncapsulations();
        return frames;
    }

    private void rcSends()
    {
        final String message = "RC SEND of " + SEND_LENGTH + " bytes";
        request(Opcode.RC_SEND_FIRST, MTU, message + ": first packet (exactly one MTU)");
        request(Opcode.RC_SEND_MIDDLE, MTU, message + ": middle packet (exactly one MTU)");
        request(Opcode.RC_SEND_LAST, SEND_LENGTH - 2 * MTU, message + ": last packet, AckReq set");
        ack("ACK of the SEND: MSN counts completed messages; credit code 0x1f (unlimited) as rxe sends");

        builderRequest(Opcode.RC_SEND_ONLY, psn++);
        builder.bthHeader().solicitedEvent(true);
        finish(13, "RC SEND ONLY of 13 bytes with Solicited Event: PadCnt 3 pads it to 16");

        builderRequest(Opcode.RC_SEND_ONLY_WITH_IMMEDIATE, psn++);
        builder.immDt().immediate(0x00C0_FFEE);
        finish(32, "RC SEND ONLY with immediate data 0x00c0ffee");

        request(Opcode.RC_SEND_FIRST, MTU, "RC SEND with immediate: first packet");
        builderRequest(Opcode.RC_SEND_LAST_WITH_IMMEDIATE, psn++);
        builder.immDt().immediate(0x1234_5678);
        finish(64, "RC SEND with immediate: the last packet carries the ImmDt");

        request(Opcode.RC_SEND_FIRST, MTU, "RC SEND with invalidate: first packet");
        builderRequest(Opcode.RC_SEND_LAST_WITH_INVALIDATE, psn++);
        builder.ieth().rkey(RKEY);
        finish(64, "RC SEND with invalidate: the last packet names the R_Key to invalidate (IETH)");

        builderRequest(Opcode.RC_SEND_ONLY_WITH_INVALIDATE, psn++);
        builder.ieth().rkey(RKEY + 1);
        finish(16, "RC SEND ONLY with invalidate");
        ack("coalesced ACK: one ACK acknowledges every packet up to its PSN");
    }

    private void rcWrites()
    {
        final String message = "RC RDMA WRITE of " + WRITE_LENGTH + " bytes";
        builderRequest(Opcode.RC_RDMA_WRITE_FIRST, psn++);
        builder.reth().va(REMOTE_VA).rkey(RKEY).dmaLength(WRITE_LENGTH);
        finish(MTU, message + ": the first packet carries the RETH (address, R_Key, total length)");
        request(Opcode.RC_RDMA_WRITE_MIDDLE, MTU, message + ": middle packet, no extension header");
        request(Opcode.RC_RDMA_WRITE_LAST, WRITE_LENGTH - 2 * MTU, message + ": last packet");

        builderRequest(Opcode.RC_RDMA_WRITE_FIRST, psn++);
        builder.reth().va(REMOTE_VA + 0x1000).rkey(RKEY).dmaLength(MTU + 48);
        finish(MTU, "RC RDMA WRITE with immediate: first packet");
        builderRequest(Opcode.RC_RDMA_WRITE_LAST_WITH_IMMEDIATE, psn++);
        builder.immDt().immediate(0xA5A5_0001);
        finish(48, "RC RDMA WRITE with immediate: the last packet consumes a receive WQE at the responder");

        builderRequest(Opcode.RC_RDMA_WRITE_ONLY, psn++);
        builder.reth().va(REMOTE_VA + 0x2000).rkey(RKEY).dmaLength(100);
        finish(100, "RC RDMA WRITE ONLY of 100 bytes");

        builderRequest(Opcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, psn++);
        builder.reth().va(REMOTE_VA + 0x2100).rkey(RKEY).dmaLength(8);
        builder.immDt().immediate(0xA5A5_0002);
        finish(8, "RC RDMA WRITE ONLY with immediate: RETH then ImmDt");
        ack("ACK of the WRITEs");
    }

    private void rcRead()
    {
        final int readPsn = psn;
        builderRequest(Opcode.RC_RDMA_READ_REQUEST, readPsn);
        builder.reth().va(REMOTE_VA).rkey(RKEY).dmaLength(READ_LENGTH);
        finish(0, "RC RDMA READ REQUEST for " + READ_LENGTH + " bytes: it uses one PSN per response packet (3)");
        psn += 3;
        response(Opcode.RC_RDMA_READ_RESPONSE_FIRST, readPsn, MTU, true,
            "RDMA READ RESPONSE FIRST: data and an AETH");
        response(Opcode.RC_RDMA_READ_RESPONSE_MIDDLE, readPsn + 1, MTU, false,
            "RDMA READ RESPONSE MIDDLE: data only");
        response(Opcode.RC_RDMA_READ_RESPONSE_LAST, readPsn + 2, READ_LENGTH - 2 * MTU, true,
            "RDMA READ RESPONSE LAST: data and an AETH");

        final int onlyPsn = psn++;
        builderRequest(Opcode.RC_RDMA_READ_REQUEST, onlyPsn);
        builder.reth().va(REMOTE_VA + 0x100).rkey(RKEY).dmaLength(64);
        finish(0, "RC RDMA READ REQUEST for 64 bytes");
        response(Opcode.RC_RDMA_READ_RESPONSE_ONLY, onlyPsn, 64, true, "RDMA READ RESPONSE ONLY");
    }

    private void rcErrors()
    {
        final int lost = psn;
        psn++;
        notCompleted = true;
        request(Opcode.RC_SEND_ONLY, 32, "RC SEND ONLY with PSN " + psnText(lost + 1) + "; the packet with PSN " +
            psnText(lost) + " was lost on the wire");
        builderResponse(Opcode.RC_ACKNOWLEDGE, lost);
        builder.aeth().syndrome(AethHeader.NakCode.PSN_SEQUENCE_ERROR.syndrome()).msn(msn);
        finish(0, "NAK PSN sequence error: its PSN is the one the responder expects (as rxe_resp.c sends it)");

        psn = lost;
        notCompleted = true;
        request(Opcode.RC_SEND_ONLY, 32, "the requester goes back to PSN " + psnText(lost) +
            ", but the responder has no receive WQE posted");
        builderResponse(Opcode.RC_ACKNOWLEDGE, lost);
        builder.aeth().syndrome(AethHeader.TYPE_RNR_NAK | RNR_TIMER_CODE).msn(msn);
        finish(0, "RNR NAK: receiver not ready, retry after RNR timer code " + RNR_TIMER_CODE + " (1.28 ms)");

        psn = lost;
        request(Opcode.RC_SEND_ONLY, 32, "RC SEND ONLY retried after the RNR timer");
        request(Opcode.RC_SEND_ONLY, 32, "RC SEND ONLY resent after the retried one");
        ack("ACK: both SENDs completed");
    }

    private void rcAtomics()
    {
        final int casPsn = psn++;
        builderRequest(Opcode.RC_COMPARE_SWAP, casPsn);
        builder.atomicEth().va(REMOTE_VA + 0x3000).rkey(RKEY).swapAdd(0x2222L).compare(0x1111L);
        finish(0, "RC COMPARE SWAP: if the 8 bytes at VA hold 0x1111, write 0x2222");
        builderResponse(Opcode.RC_ATOMIC_ACKNOWLEDGE, casPsn);
        builder.aeth().syndrome(AethHeader.SYNDROME_ACK_UNLIMITED).msn(msn);
        builder.atomicAckEth().originalData(0x1111L);
        finish(0, "ATOMIC ACKNOWLEDGE returns the original value 0x1111: the swap happened");

        final int faddPsn = psn++;
        builderRequest(Opcode.RC_FETCH_ADD, faddPsn);
        builder.atomicEth().va(REMOTE_VA + 0x3008).rkey(RKEY).swapAdd(1L);
        finish(0, "RC FETCH ADD: add 1 to the 8 bytes at VA");
        builderResponse(Opcode.RC_ATOMIC_ACKNOWLEDGE, faddPsn);
        builder.aeth().syndrome(AethHeader.SYNDROME_ACK_UNLIMITED).msn(msn);
        builder.atomicAckEth().originalData(41L);
        finish(0, "ATOMIC ACKNOWLEDGE of the FETCH ADD: the value before the add");
    }

    private void rcFlushAndAtomicWrite()
    {
        final int flushPsn = psn++;
        builderRequest(Opcode.RC_FLUSH, flushPsn);
        builder.feth().flush(0, FethHeader.PLACEMENT_PERSISTENT);
        builder.reth().va(REMOTE_VA).rkey(RKEY).dmaLength(4096);
        finish(0, "RC FLUSH (IBA A19): FETH (selectivity, placement type) then RETH, no payload");
        response(Opcode.RC_RDMA_READ_RESPONSE_ONLY, flushPsn, 0, true,
            "rxe answers FLUSH with a zero-length RDMA READ RESPONSE ONLY");

        final int writePsn = psn++;
        builderRequest(Opcode.RC_ATOMIC_WRITE, writePsn);
        builder.reth().va(REMOTE_VA + 0x3010).rkey(RKEY).dmaLength(8);
        finish(8, "RC ATOMIC WRITE (IBA A19): RETH and exactly 8 bytes, written atomically");
        response(Opcode.RC_RDMA_READ_RESPONSE_ONLY, writePsn, 0, true,
            "rxe answers ATOMIC WRITE with a zero-length RDMA READ RESPONSE ONLY");
    }

    private void ucAll()
    {
        request(Opcode.UC_SEND_FIRST, MTU, "UC SEND: first packet (UC has no ACKs and no AckReq)");
        request(Opcode.UC_SEND_MIDDLE, MTU, "UC SEND: middle packet");
        request(Opcode.UC_SEND_LAST, 20, "UC SEND: last packet");
        request(Opcode.UC_SEND_ONLY, 20, "UC SEND ONLY");
        request(Opcode.UC_SEND_FIRST, MTU, "UC SEND with immediate: first packet");
        builderRequest(Opcode.UC_SEND_LAST_WITH_IMMEDIATE, psn++);
        builder.immDt().immediate(0x0BAD_CAFE);
        finish(20, "UC SEND with immediate: last packet");
        builderRequest(Opcode.UC_SEND_ONLY_WITH_IMMEDIATE, psn++);
        builder.immDt().immediate(0x0BAD_CAFF);
        finish(20, "UC SEND ONLY with immediate");

        builderRequest(Opcode.UC_RDMA_WRITE_FIRST, psn++);
        builder.reth().va(REMOTE_VA).rkey(RKEY).dmaLength(2 * MTU + 20);
        finish(MTU, "UC RDMA WRITE: first packet with RETH");
        request(Opcode.UC_RDMA_WRITE_MIDDLE, MTU, "UC RDMA WRITE: middle packet");
        request(Opcode.UC_RDMA_WRITE_LAST, 20, "UC RDMA WRITE: last packet");
        builderRequest(Opcode.UC_RDMA_WRITE_FIRST, psn++);
        builder.reth().va(REMOTE_VA).rkey(RKEY).dmaLength(MTU + 20);
        finish(MTU, "UC RDMA WRITE with immediate: first packet");
        builderRequest(Opcode.UC_RDMA_WRITE_LAST_WITH_IMMEDIATE, psn++);
        builder.immDt().immediate(0x0BAD_D00D);
        finish(20, "UC RDMA WRITE with immediate: last packet");
        builderRequest(Opcode.UC_RDMA_WRITE_ONLY, psn++);
        builder.reth().va(REMOTE_VA).rkey(RKEY).dmaLength(20);
        finish(20, "UC RDMA WRITE ONLY");
        builderRequest(Opcode.UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, psn++);
        builder.reth().va(REMOTE_VA).rkey(RKEY).dmaLength(20);
        builder.immDt().immediate(0x0BAD_D00E);
        finish(20, "UC RDMA WRITE ONLY with immediate");
    }

    private void udAll()
    {
        builderRequest(Opcode.UD_SEND_ONLY, psn++);
        builder.deth().qkey(UD_QKEY).srcQp(requester.qpn());
        finish(64, "UD SEND ONLY: DETH carries the Q_Key and the sender's QP");
        builderRequest(Opcode.UD_SEND_ONLY_WITH_IMMEDIATE, psn++);
        builder.deth().qkey(UD_QKEY).srcQp(requester.qpn());
        builder.immDt().immediate(0x0000_0042);
        finish(64, "UD SEND ONLY with immediate: DETH then ImmDt");
    }

    private void cmConnectRequest()
    {
        start(requester, responder).ipv4(requester.ipv4(), responder.ipv4()).udp(requester.udpSourcePort())
            .bth(Opcode.UD_SEND_ONLY, BthHeader.GSI_QPN, 0);
        builder.bthHeader().ackReq(true);
        builder.deth().qkey(DethHeader.GSI_QKEY).srcQp(BthHeader.GSI_QPN);
        final int madOffset = builder.payloadOffset();
        frame.setMemory(madOffset, MadHeader.MAD_LENGTH, (byte)0);
        mad.wrap(frame, madOffset).cm(CmAttribute.CONNECT_REQUEST, 0x0000_0001_0000_0001L);
        // The values the Linux kernel CM sends for rdma_connect() (cma.c cma_connect_ib, cm.c cm_format_req).
        req.wrapMad(frame, madOffset)
            .localCommId(0x0000_0001)
            .serviceId(RdmaCmServiceId.serviceId(RdmaCmServiceId.PS_TCP, RDMA_CM_PORT))
            .localCaGuid(0x0200_00ff_fe00_0001L)
            .localQpn(requester.qpn())
            .responderResources(1)
            .initiatorDepth(1)
            .remoteCmResponseTimeout(20)
            .transportServiceType(CmReqMessage.TRANSPORT_RC)
            .startingPsn(FIRST_PSN)
            .localCmResponseTimeout(20)
            .retryCount(7)
            .pkey(BthHeader.DEFAULT_PKEY)
            .pathMtu(1)
            .rnrRetryCount(7)
            .maxCmRetries(15);
        final CmPath path = req.primaryPath();
        path.localLid(CmPath.PERMISSIVE_LID).remoteLid(CmPath.PERMISSIVE_LID)
            .localGid(0, Gid.ipv4MappedLow(requester.ipv4()))
            .remoteGid(0, Gid.ipv4MappedLow(responder.ipv4()))
            .hopLimit(64)
            .localAckTimeout(19);
        cma.wrap(frame, req.privateDataBufferOffset()).ipv4(49376, requester.ipv4(), responder.ipv4());
        builder.payloadLength(MadHeader.MAD_LENGTH);
        emit(builder.finish(), "RDMA CM ConnectRequest: a 256-byte MAD in a UD SEND to QP1, Q_Key 0x80010000, " +
            "service ID 0x0000000001060000 | port " + RDMA_CM_PORT);
    }

    private void cnp()
    {
        start(responder, requester).ipv4(responder.ipv4(), requester.ipv4()).udp(CNP_SOURCE_PORT)
            .bth(Opcode.CNP_NOTIFICATION, requester.qpn(), 0);
        builder.bthHeader().becn(true);
        emit(builder.finish(), "CNP (opcode 0x81): BECN set, 16 reserved bytes, asks the sender of QP " +
            requester.qpn() + " to slow down");
    }

    private void otherEncapsulations()
    {
        start(requester, responder)
            .ipv6(requester.ipv6High(), requester.ipv6Low(), responder.ipv6High(), responder.ipv6Low())
            .udp(requester.udpSourcePort()).bth(Opcode.RC_SEND_ONLY, responder.qpn(), psn++);
        builder.bthHeader().ackReq(true);
        builder.payload(payload, 0, 40);
        emit(builder.finish(), "RC SEND ONLY over IPv6 (the ICRC masks traffic class, flow label and hop limit)");

        builder.wrap(frame, 0).ethernet(responder.mac(), requester.mac(), VLAN_PCP, VLAN_ID)
            .ipv4(requester.ipv4(), responder.ipv4()).udp(requester.udpSourcePort())
            .bth(Opcode.RC_SEND_ONLY, responder.qpn(), psn++);
        builder.bthHeader().ackReq(true);
        builder.payload(payload, 0, 40);
        emit(builder.finish(), "RC SEND ONLY in 802.1Q VLAN " + VLAN_ID + " with priority " + VLAN_PCP);
    }

    // ---------------------------------------------------------------------------------------------------------------

    private RoceFrameBuilder start(final DemoEndpoint from, final DemoEndpoint to)
    {
        pendingRequest = null;
        return builder.wrap(frame, 0).ethernet(to.mac(), from.mac());
    }

    /**
     * Requester to responder, IPv4, BTH to the responder's QP. RC message ends get AckReq, as rxe sets it on the
     * last packet of every message.
     */
    private void builderRequest(final Opcode opcode, final int requestPsn)
    {
        start(requester, responder).ipv4(requester.ipv4(), responder.ipv4()).udp(requester.udpSourcePort())
            .bth(opcode, responder.qpn(), requestPsn);
        if (opcode.canRequestAck() && opcode.position().isEnd())
        {
            builder.bthHeader().ackReq(true);
        }
        pendingRequest = opcode;
    }

    /** Responder to requester, IPv4, BTH to the requester's QP. */
    private void builderResponse(final Opcode opcode, final int responsePsn)
    {
        start(responder, requester).ipv4(responder.ipv4(), requester.ipv4()).udp(responder.udpSourcePort())
            .bth(opcode, requester.qpn(), responsePsn);
        pendingRequest = null;
    }

    private void request(final Opcode opcode, final int length, final String description)
    {
        builderRequest(opcode, psn++);
        finish(length, description);
    }

    /** An ACK of everything up to the last request's PSN, carrying the count of completed messages. */
    private void ack(final String description)
    {
        builderResponse(Opcode.RC_ACKNOWLEDGE, psn - 1);
        builder.aeth().syndrome(AethHeader.SYNDROME_ACK_UNLIMITED).msn(msn);
        finish(0, description);
    }

    private void response(
        final Opcode opcode, final int responsePsn, final int length, final boolean aeth, final String description)
    {
        builderResponse(opcode, responsePsn);
        if (aeth)
        {
            builder.aeth().syndrome(AethHeader.SYNDROME_ACK_UNLIMITED).msn(msn);
        }
        finish(length, description);
    }

    /**
     * Add the payload, finish the frame and hand it over. An RC request that ends a message completes it at the
     * responder (the MSN counts it), unless the story says it was lost or refused.
     */
    private void finish(final int payloadLength, final String description)
    {
        if (payloadLength > 0)
        {
            builder.payload(payload, 0, payloadLength);
        }
        if (null != pendingRequest && Transport.RC == pendingRequest.transport() &&
            pendingRequest.position().isEnd() && !notCompleted)
        {
            msn++;
        }
        notCompleted = false;
        emit(builder.finish(), description);
    }

    private void emit(final int length, final String description)
    {
        frames++;
        sink.frame(description, frame, 0, length);
    }

    private static String psnText(final int psn)
    {
        return Integer.toString(psn & BthHeader.MASK_24);
    }
}
