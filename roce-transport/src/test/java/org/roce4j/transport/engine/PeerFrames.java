package org.roce4j.transport.engine;

import java.util.function.Consumer;

import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.wire.ExtHeader;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.Icrc;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrameBuilder;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.header.AethHeader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.roce4j.transport.engine.ScriptedPeer.ENGINE;
import static org.roce4j.transport.engine.ScriptedPeer.PEER;
import static org.roce4j.transport.engine.ScriptedPeer.PEER_QPN;

/**
 * The packets a {@link ScriptedPeer} sends: every request, response and ACK a test crafts, built with
 * {@link RoceFrameBuilder} from the peer's address to the engine's and addressed to the engine's QP.
 */
abstract class PeerFrames
{
    private final RoceFrameBuilder builder = new RoceFrameBuilder();
    private final UnsafeBuffer scratch = new UnsafeBuffer(new byte[16384]);

    /**
     * @return the QP number of the engine's QP the packets go to.
     */
    abstract int engineQpn();

    /**
     * @return upper 64 bits of the engine's GID 0 (the destination of IPv6 frames).
     */
    abstract long engineGidHigh();

    /**
     * @return lower 64 bits of the engine's GID 0.
     */
    abstract long engineGidLow();

    /**
     * Build a frame from the peer to the engine (IPv4).
     *
     * @param opcode  opcode.
     * @param destQp  destination QP.
     * @param psn     PSN.
     * @param payload payload.
     * @param headers sets BTH flags and extension headers.
     * @return the frame.
     */
    byte[] frame(final Opcode opcode, final int destQp, final int psn, final byte[] payload,
        final Consumer<RoceFrameBuilder> headers)
    {
        return frameBetween(PEER.ipv4(), ENGINE.ipv4(), opcode, destQp, psn, payload, headers);
    }

    /**
     * Build an IPv4 frame between any two addresses.
     *
     * @param sourceIp      IPv4 source.
     * @param destinationIp IPv4 destination.
     * @param opcode        opcode.
     * @param destQp        destination QP.
     * @param psn           PSN.
     * @param payload       payload.
     * @param headers       sets BTH flags and extension headers.
     * @return the frame.
     */
    byte[] frameBetween(final int sourceIp, final int destinationIp, final Opcode opcode, final int destQp,
        final int psn, final byte[] payload, final Consumer<RoceFrameBuilder> headers)
    {
        builder.wrap(scratch, 0).ethernet(ENGINE.mac(), PEER.mac()).ipv4(sourceIp, destinationIp).udp(0xC0DE)
            .bth(opcode, destQp, psn);
        return finish(payload, headers);
    }

    /**
     * Build an IPv6 frame from a link-local peer address to the engine's link-local GID.
     *
     * @param opcode  opcode.
     * @param destQp  destination QP.
     * @param psn     PSN.
     * @param payload payload.
     * @param headers sets BTH flags and extension headers.
     * @return the frame.
     */
    byte[] frameIpv6(final Opcode opcode, final int destQp, final int psn, final byte[] payload,
        final Consumer<RoceFrameBuilder> headers)
    {
        builder.wrap(scratch, 0).ethernet(ENGINE.mac(), PEER.mac())
            .ipv6(Gid.LINK_LOCAL_HIGH, PEER.linkLocalLow(), engineGidHigh(), engineGidLow())
            .udp(0xC0DE);
        builder.ipv6Header().versionClassFlow(0x0A, 0x12345).hopLimit(17);
        builder.bth(opcode, destQp, psn);
        return finish(payload, headers);
    }

    private byte[] finish(final byte[] payload, final Consumer<RoceFrameBuilder> headers)
    {
        headers.accept(builder);
        builder.payload(new UnsafeBuffer(payload), 0, payload.length);
        final int length = builder.finish();
        final byte[] frame = new byte[length];
        scratch.getBytes(0, frame);
        return frame;
    }

    /**
     * Rewrite the BTH PadCnt of a finished frame and seal it again with a correct ICRC, so the only thing wrong
     * with it is the pad count (the payload length the receiver derives changes with it).
     *
     * @param frame    a frame built by this harness.
     * @param padCount 0..3.
     * @return a new frame.
     */
    static byte[] withPadCount(final byte[] frame, final int padCount)
    {
        final byte[] copy = frame.clone();
        final UnsafeBuffer buffer = new UnsafeBuffer(copy);
        final RoceFrameParser p = new RoceFrameParser();
        assertEquals(FrameStatus.OK, p.parse(buffer, 0, copy.length));
        p.bth().padCount(padCount);
        new Icrc().seal(buffer, p.ipOffset(), p.ipVersion(), p.ipHeaderLength(), p.icrcOffset());
        return copy;
    }

    /**
     * A SEND packet (RC or UC) to the engine's QP.
     *
     * @param opcode  a SEND opcode.
     * @param psn     PSN.
     * @param payload payload.
     * @param ackReq  AckReq bit.
     * @return the frame.
     */
    byte[] send(final Opcode opcode, final int psn, final byte[] payload, final boolean ackReq)
    {
        return frame(opcode, engineQpn(), psn, payload, b -> b.bthHeader().ackReq(ackReq));
    }

    /**
     * An RDMA WRITE packet (RC or UC) to the engine's QP; the RETH is filled when the opcode has one.
     *
     * @param opcode    a WRITE opcode.
     * @param psn       PSN.
     * @param payload   payload.
     * @param va        RETH VA.
     * @param rkey      RETH R_Key.
     * @param dmaLength RETH DMA length.
     * @param ackReq    AckReq bit.
     * @return the frame.
     */
    byte[] write(final Opcode opcode, final int psn, final byte[] payload, final long va, final int rkey,
        final long dmaLength, final boolean ackReq)
    {
        return frame(opcode, engineQpn(), psn, payload, b ->
        {
            b.bthHeader().ackReq(ackReq);
            if (opcode.has(ExtHeader.RETH))
            {
                b.reth().va(va).rkey(rkey).dmaLength(dmaLength);
            }
        });
    }

    /**
     * An RDMA READ request (AckReq set, as requesters do).
     *
     * @param psn       PSN.
     * @param va        RETH VA.
     * @param rkey      RETH R_Key.
     * @param dmaLength RETH DMA length.
     * @return the frame.
     */
    byte[] read(final int psn, final long va, final int rkey, final long dmaLength)
    {
        return frame(Opcode.RC_RDMA_READ_REQUEST, engineQpn(), psn, new byte[0], b ->
        {
            b.bthHeader().ackReq(true);
            b.reth().va(va).rkey(rkey).dmaLength(dmaLength);
        });
    }

    /**
     * An atomic request.
     *
     * @param opcode  RC_COMPARE_SWAP or RC_FETCH_ADD.
     * @param psn     PSN.
     * @param va      target.
     * @param rkey    R_Key.
     * @param swapAdd swap value or addend.
     * @param compare compare value.
     * @return the frame.
     */
    byte[] atomic(final Opcode opcode, final int psn, final long va, final int rkey, final long swapAdd,
        final long compare)
    {
        return frame(opcode, engineQpn(), psn, new byte[0], b ->
        {
            b.bthHeader().ackReq(true);
            b.atomicEth().va(va).rkey(rkey).swapAdd(swapAdd).compare(compare);
        });
    }

    /**
     * An ATOMIC WRITE request (AckReq set, as requesters do).
     *
     * @param psn       PSN.
     * @param va        RETH VA.
     * @param rkey      RETH R_Key.
     * @param dmaLength RETH DMA length (8 from a well-behaved requester).
     * @param payload   payload (8 bytes from a well-behaved requester).
     * @return the frame.
     */
    byte[] atomicWrite(final int psn, final long va, final int rkey, final long dmaLength, final byte[] payload)
    {
        return frame(Opcode.RC_ATOMIC_WRITE, engineQpn(), psn, payload, b ->
        {
            b.bthHeader().ackReq(true);
            b.reth().va(va).rkey(rkey).dmaLength(dmaLength);
        });
    }

    /**
     * A FLUSH request (AckReq set).
     *
     * @param psn       PSN.
     * @param va        RETH VA.
     * @param rkey      RETH R_Key.
     * @param dmaLength RETH DMA length.
     * @param type      FETH placement type.
     * @param level     FETH selectivity level.
     * @return the frame.
     */
    byte[] flush(final int psn, final long va, final int rkey, final long dmaLength, final int type, final int level)
    {
        return frame(Opcode.RC_FLUSH, engineQpn(), psn, new byte[0], b ->
        {
            b.bthHeader().ackReq(true);
            b.feth().flush(level, type);
            b.reth().va(va).rkey(rkey).dmaLength(dmaLength);
        });
    }

    /**
     * A UD SEND to a QP of the engine.
     *
     * @param destQp  the engine's QP.
     * @param qkey    DETH Q_Key.
     * @param payload payload.
     * @return the frame.
     */
    byte[] ud(final int destQp, final int qkey, final byte[] payload)
    {
        return frame(Opcode.UD_SEND_ONLY, destQp, 0x42, payload, b -> b.deth().qkey(qkey).srcQp(PEER_QPN));
    }

    /**
     * An ACK or NAK to the engine's requester.
     *
     * @param psn      PSN.
     * @param syndrome AETH syndrome.
     * @return the frame.
     */
    byte[] ack(final int psn, final int syndrome)
    {
        return frame(Opcode.RC_ACKNOWLEDGE, engineQpn(), psn, new byte[0], b -> b.aeth().syndrome(syndrome).msn(0));
    }

    /**
     * A NAK with a NAK code.
     *
     * @param psn  PSN.
     * @param code NAK code.
     * @return the frame.
     */
    byte[] nak(final int psn, final AethHeader.NakCode code)
    {
        return ack(psn, code.syndrome());
    }

    /**
     * An RNR NAK.
     *
     * @param psn       PSN.
     * @param timerCode RNR timer code 0..31.
     * @return the frame.
     */
    byte[] rnrNak(final int psn, final int timerCode)
    {
        return ack(psn, AethHeader.TYPE_RNR_NAK | timerCode);
    }

    /**
     * A READ response packet (with an ACK AETH when the opcode carries one).
     *
     * @param opcode  a READ response opcode.
     * @param psn     PSN.
     * @param payload data.
     * @return the frame.
     */
    byte[] readResponse(final Opcode opcode, final int psn, final byte[] payload)
    {
        return frame(opcode, engineQpn(), psn, payload, b ->
        {
            if (opcode.has(ExtHeader.AETH))
            {
                b.aeth().syndrome(AethHeader.SYNDROME_ACK_UNLIMITED).msn(0);
            }
        });
    }

    /**
     * An ATOMIC ACKNOWLEDGE.
     *
     * @param psn      PSN.
     * @param original original data.
     * @return the frame.
     */
    byte[] atomicAck(final int psn, final long original)
    {
        return frame(Opcode.RC_ATOMIC_ACKNOWLEDGE, engineQpn(), psn, new byte[0], b ->
        {
            b.aeth().syndrome(AethHeader.SYNDROME_ACK_UNLIMITED).msn(0);
            b.atomicAckEth().originalData(original);
        });
    }

}
