package org.roce4j.interop;

import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Predicate;

import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.transport.link.tunnel.TunnelLink;
import org.roce4j.wire.ExtHeader;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.Icrc;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.Operation;
import org.roce4j.wire.Position;
import org.roce4j.wire.Psn;
import org.roce4j.wire.RoceFrameBuilder;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.addr.Mac;
import org.roce4j.wire.header.AethHeader;
import org.roce4j.wire.header.Ipv4Header;

/**
 * One side of an RC connection built by hand from roce-wire alone, no engine: it sends SEND messages (split into
 * FIRST/MIDDLE/LAST at the path MTU as IBA 9.7.2 and rxe's {@code next_opcode_rc} do) and ACKs, and receives every
 * RoCE frame the peer sends, parsed with its ICRC checked. Test code decides what to send when; this class only
 * does the byte work and keeps what it saw.
 */
final class HandRolledRc
{
    /** UDP source port of our frames: in the dynamic range 0xC000-0xFFFF RoCEv2 senders use (IBA A17.4.1). */
    static final int UDP_SOURCE_PORT = 0xC0DE;

    /**
     * A RoCE frame received from the peer.
     *
     * @param frame      the bytes as received.
     * @param status     the parser's verdict with the ICRC checked ({@link FrameStatus#OK} or a problem).
     * @param opcode     the BTH opcode.
     * @param destQp     BTH DestQP.
     * @param psn        BTH PSN.
     * @param ackReq     BTH AckReq.
     * @param syndrome   AETH syndrome, or -1 without an AETH.
     * @param msn        AETH MSN, or -1 without an AETH.
     * @param payload    the payload bytes (no pad).
     * @param sourceIp   IPv4 source.
     * @param udpSource  UDP source port.
     */
    record Packet(
        byte[] frame,
        FrameStatus status,
        Opcode opcode,
        int destQp,
        int psn,
        boolean ackReq,
        int syndrome,
        int msn,
        byte[] payload,
        int sourceIp,
        int udpSource)
    {
        /**
         * @return e.g. {@code RC_ACKNOWLEDGE psn=0x123456 qp=0x000abc syndrome=0x1f msn=1 OK}.
         */
        public String toString()
        {
            return opcode + String.format(" psn=0x%06x qp=0x%06x", psn, destQp) + (ackReq ? " ackreq" : "") +
                (syndrome >= 0 ? String.format(" syndrome=0x%02x msn=%d", syndrome, msn) : "") +
                " payload=" + payload.length + " " + status;
        }
    }

    private final TunnelLink link;
    private final int ourIp;
    private final int peerIp;
    private final int ourQpn;
    private final RoceFrameBuilder builder = new RoceFrameBuilder();
    private final RoceFrameParser parser = new RoceFrameParser();
    private final IdleStrategy idle = new BackoffIdleStrategy(100, 10, 10_000, 1_000_000);
    private final List<Packet> received = new ArrayList<>();
    private final List<Packet> unclaimed = new ArrayList<>();
    private int roceFramesSent;
    private int otherFramesReceived;

    /**
     * @param link   a tunnel link to the peer.
     * @param peerIp the peer's IPv4 address.
     * @param ourQpn the QPN we claim to be.
     */
    HandRolledRc(final TunnelLink link, final int peerIp, final int ourQpn)
    {
        this.link = link;
        this.ourIp = link.address().ipv4();
        this.peerIp = peerIp;
        this.ourQpn = ourQpn;
    }

    /**
     * ARP for the peer now, so the first RoCE frame does not wait (and the guest learns our MAC from the request).
     *
     * @param timeout how long.
     */
    void resolvePeer(final Duration timeout)
    {
        link.resolve(peerIp);
        final long deadlineNs = System.nanoTime() + timeout.toNanos();
        while (Mac.NONE == link.resolvedMac(peerIp))
        {
            pumpOnce(deadlineNs, "ARP for " + Ipv4Header.addressToString(peerIp));
        }
    }

    /**
     * Send one SEND message.
     *
     * @param destQp   the peer's QPN.
     * @param firstPsn PSN of the first packet.
     * @param payload  the message.
     * @param pathMtu  IB path MTU in bytes: the payload of FIRST and MIDDLE packets.
     * @return packets sent; the last one (PSN {@code firstPsn + packets - 1}) has AckReq set.
     */
    int sendMessage(final int destQp, final int firstPsn, final byte[] payload, final int pathMtu)
    {
        final int packets = Math.max(1, (payload.length + pathMtu - 1) / pathMtu);
        for (int i = 0; i < packets; i++)
        {
            final Opcode opcode = 1 == packets ? Opcode.RC_SEND_ONLY :
                0 == i ? Opcode.RC_SEND_FIRST : packets - 1 == i ? Opcode.RC_SEND_LAST : Opcode.RC_SEND_MIDDLE;
            final int offset = i * pathMtu;
            final int length = Math.min(pathMtu, payload.length - offset);
            final boolean last = packets - 1 == i;
            sendRequest(opcode, destQp, Psn.add(firstPsn, i), last, payload, offset, length, false);
        }
        return packets;
    }

    /**
     * Send one SEND_ONLY packet with AckReq, optionally with a wrong ICRC.
     *
     * @param destQp      DestQP to put in the BTH.
     * @param psn         PSN.
     * @param payload     the message (at most one path MTU).
     * @param corruptIcrc true to flip every bit of the ICRC after computing it.
     */
    void sendOnly(final int destQp, final int psn, final byte[] payload, final boolean corruptIcrc)
    {
        sendRequest(Opcode.RC_SEND_ONLY, destQp, psn, true, payload, 0, payload.length, corruptIcrc);
    }

    /**
     * Acknowledge: opcode ACKNOWLEDGE with an AETH of syndrome 0x1F (ACK, credits "unlimited", as rxe always
     * sends; IBA 9.7.5.1) and the given MSN.
     *
     * @param destQp the peer's QPN.
     * @param psn    PSN of the last packet acknowledged.
     * @param msn    messages completed so far on this connection.
     */
    void sendAck(final int destQp, final int psn, final int msn)
    {
        final int index = claim();
        final MutableDirectBuffer buffer = link.sendBuffer();
        builder.wrap(buffer, index)
            .ethernet(0L, link.address().mac())
            .ipv4(ourIp, peerIp)
            .udp(UDP_SOURCE_PORT)
            .bth(Opcode.RC_ACKNOWLEDGE, destQp, psn);
        builder.aeth().syndrome(AethHeader.SYNDROME_ACK_UNLIMITED).msn(msn);
        link.commit(index, builder.finish());
        roceFramesSent++;
        flush();
    }

    /**
     * Wait for a frame from the peer that matches and has not been claimed by an earlier call.
     *
     * @param what    description for the failure message.
     * @param filter  which frame.
     * @param timeout how long.
     * @return the frame, now claimed.
     */
    Packet await(final String what, final Predicate<Packet> filter, final Duration timeout)
    {
        final long deadlineNs = System.nanoTime() + timeout.toNanos();
        while (true)
        {
            for (int i = 0; i < unclaimed.size(); i++)
            {
                final Packet packet = unclaimed.get(i);
                if (filter.test(packet))
                {
                    unclaimed.remove(i);
                    return packet;
                }
            }
            pumpOnce(deadlineNs, what);
        }
    }

    /**
     * Wait for a whole SEND message from the peer, packet by packet in PSN order from {@code firstPsn}:
     * SEND_ONLY, or SEND_FIRST, SEND_MIDDLE..., SEND_LAST.
     *
     * @param firstPsn the peer's first PSN for the message.
     * @param timeout  how long.
     * @return the packets in order.
     */
    List<Packet> awaitMessage(final int firstPsn, final Duration timeout)
    {
        final List<Packet> packets = new ArrayList<>();
        int psn = firstPsn;
        while (true)
        {
            final int expected = psn;
            final Packet packet = await(String.format("SEND packet with PSN 0x%06x", expected),
                p -> Operation.SEND == p.opcode().operation() && expected == p.psn(), timeout);
            packets.add(packet);
            final Position position = packet.opcode().position();
            if (Position.ONLY == position || Position.LAST == position)
            {
                return packets;
            }
            psn = Psn.add(psn, 1);
        }
    }

    /**
     * @param packets from {@link #awaitMessage}.
     * @return the message: the packets' payloads in order.
     */
    static byte[] payloadOf(final List<Packet> packets)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (final Packet packet : packets)
        {
            out.writeBytes(packet.payload());
        }
        return out.toByteArray();
    }

    /**
     * @return every RoCE frame received so far, in order.
     */
    List<Packet> received()
    {
        return Collections.unmodifiableList(received);
    }

    /**
     * @return RoCE frames sent so far.
     */
    int roceFramesSent()
    {
        return roceFramesSent;
    }

    /**
     * @return frames for our MAC that were not RoCE (UDP 4791).
     */
    int otherFramesReceived()
    {
        return otherFramesReceived;
    }

    /**
     * @return our QPN.
     */
    int ourQpn()
    {
        return ourQpn;
    }

    private void sendRequest(
        final Opcode opcode,
        final int destQp,
        final int psn,
        final boolean ackReq,
        final byte[] payload,
        final int offset,
        final int length,
        final boolean corruptIcrc)
    {
        final int index = claim();
        final MutableDirectBuffer buffer = link.sendBuffer();
        builder.wrap(buffer, index)
            .ethernet(0L, link.address().mac())
            .ipv4(ourIp, peerIp)
            .udp(UDP_SOURCE_PORT)
            .bth(opcode, destQp, psn);
        builder.bthHeader().ackReq(ackReq);
        final int frameLength = builder.payload(new UnsafeBuffer(payload), offset, length).finish();
        if (corruptIcrc)
        {
            final int icrcOffset = index + frameLength - Icrc.LENGTH;
            Icrc.write(buffer, icrcOffset, ~Icrc.read(buffer, icrcOffset));
        }
        link.commit(index, frameLength);
        roceFramesSent++;
        flush();
    }

    private int claim()
    {
        final int index = link.tryClaim(link.maxFrameLength());
        if (index < 0)
        {
            throw new IllegalStateException("tunnel link send ring full");
        }
        return index;
    }

    private void flush()
    {
        link.flush();
    }

    private void pumpOnce(final long deadlineNs, final String what)
    {
        if (System.nanoTime() - deadlineNs > 0)
        {
            throw new AssertionError("timed out waiting for " + what + "; received so far: " + received +
                "; link " + link.counters());
        }
        final int work = link.poll(this::onFrame, 16) + link.flush();
        idle.idle(work);
    }

    private void onFrame(final MutableDirectBuffer buffer, final int offset, final int length)
    {
        final byte[] frame = new byte[length];
        buffer.getBytes(offset, frame);
        final UnsafeBuffer copy = new UnsafeBuffer(frame);
        final FrameStatus status = parser.parse(copy, 0, length, true);
        final Opcode opcode = parser.opcode();
        if (null == opcode || 4 != parser.ipVersion())
        {
            otherFramesReceived++;
            return;
        }
        final boolean hasAeth = opcode.has(ExtHeader.AETH);
        final int payloadLength = FrameStatus.OK == status || FrameStatus.BAD_ICRC == status ?
            parser.payloadLength() : 0;
        final byte[] payload = new byte[payloadLength];
        copy.getBytes(parser.payloadOffset(), payload);
        final Packet packet = new Packet(frame, status, opcode, parser.bth().destQp(), parser.bth().psn(),
            parser.bth().ackReq(), hasAeth ? parser.aeth().syndrome() : -1, hasAeth ? parser.aeth().msn() : -1,
            payload, parser.ipv4().source(), parser.udp().sourcePort());
        received.add(packet);
        unclaimed.add(packet);
    }
}
