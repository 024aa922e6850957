package org.roce4j.transport.link;

import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrameBuilder;
import org.roce4j.wire.addr.Gid;

/**
 * Builds well-formed RoCEv2 frames between {@link LinkAddress}es for link tests, with a payload pattern derived
 * from the PSN so a receiver can check every byte. Not thread safe: one instance per thread.
 */
public final class TestFrames
{
    /** MAC prefix of test addresses: locally administered (bit 0x02 of the first byte), unicast. */
    public static final long TEST_MAC_PREFIX = 0x02_00_00_00_00_00L;
    /** 10.0.0.0: test IPv4 addresses are 10.0.x.y. */
    public static final int TEST_NET = 0x0A00_0000;
    /** rxe's UDP source port base (0xC000 + a hash of the QPN); any value works. */
    public static final int SOURCE_PORT = 0xC000;

    private final RoceFrameBuilder builder = new RoceFrameBuilder();
    private final UnsafeBuffer payload = new UnsafeBuffer(new byte[0x1_0000]);

    /**
     * @param host 1..65534.
     * @return MAC 02:00:00:00:hh:ll and IPv4 10.0.hh.ll.
     */
    public static LinkAddress address(final int host)
    {
        return new LinkAddress(TEST_MAC_PREFIX | host, TEST_NET | host);
    }

    /**
     * @param psn   of the frame.
     * @param index of a payload byte.
     * @return the byte the pattern puts there.
     */
    public static byte patternByte(final int psn, final int index)
    {
        return (byte)(psn * 31 + index * 7 + 1);
    }

    /**
     * Build an IPv4 RoCEv2 frame with destination MAC 0 (the fabric fills it in).
     *
     * @param buffer        to build into.
     * @param offset        of the Ethernet header.
     * @param from          sender.
     * @param to            receiver.
     * @param opcode        of the packet.
     * @param qpn           BTH DestQP.
     * @param psn           BTH PSN, also seeds the payload pattern.
     * @param payloadLength bytes of payload (0 for opcodes without payload).
     * @return frame length.
     */
    public int ipv4(
        final MutableDirectBuffer buffer,
        final int offset,
        final LinkAddress from,
        final LinkAddress to,
        final Opcode opcode,
        final int qpn,
        final int psn,
        final int payloadLength)
    {
        builder.wrap(buffer, offset).ethernet(0, from.mac()).ipv4(from.ipv4(), to.ipv4()).udp(SOURCE_PORT)
            .bth(opcode, qpn, psn);
        return finish(psn, payloadLength);
    }

    /**
     * Build an IPv6 RoCEv2 frame addressed to one of the receiver's GIDs.
     *
     * @param buffer        to build into.
     * @param offset        of the Ethernet header.
     * @param from          sender.
     * @param to            receiver.
     * @param linkLocal     true for the fe80:: GID (index 0), false for ::ffff:a.b.c.d (index 1).
     * @param opcode        of the packet.
     * @param qpn           BTH DestQP.
     * @param psn           BTH PSN, also seeds the payload pattern.
     * @param payloadLength bytes of payload.
     * @return frame length.
     */
    public int ipv6(
        final MutableDirectBuffer buffer,
        final int offset,
        final LinkAddress from,
        final LinkAddress to,
        final boolean linkLocal,
        final Opcode opcode,
        final int qpn,
        final int psn,
        final int payloadLength)
    {
        builder.wrap(buffer, offset).ethernet(0, from.mac());
        if (linkLocal)
        {
            builder.ipv6(Gid.LINK_LOCAL_HIGH, from.linkLocalLow(), Gid.LINK_LOCAL_HIGH,
                to.linkLocalLow());
        }
        else
        {
            builder.ipv6(Gid.IPV4_MAPPED_HIGH, from.ipv4MappedLow(), Gid.IPV4_MAPPED_HIGH,
                to.ipv4MappedLow());
        }
        builder.udp(SOURCE_PORT).bth(opcode, qpn, psn);
        return finish(psn, payloadLength);
    }

    /**
     * Claim, build an IPv4 frame in the link's send buffer, commit.
     *
     * @param link          sending.
     * @param to            receiver.
     * @param opcode        of the packet.
     * @param qpn           BTH DestQP.
     * @param psn           BTH PSN.
     * @param payloadLength bytes of payload.
     * @return frame length.
     */
    public int send(
        final Link link, final LinkAddress to, final Opcode opcode, final int qpn, final int psn,
        final int payloadLength)
    {
        final int index = link.tryClaim(link.mtu() + 18);
        if (index < 0)
        {
            throw new IllegalStateException("link full: " + link.name());
        }
        final int length = ipv4(link.sendBuffer(), index, link.address(), to, opcode, qpn, psn, payloadLength);
        link.commit(index, length);
        return length;
    }

    private int finish(final int psn, final int payloadLength)
    {
        if (payloadLength > 0)
        {
            for (int i = 0; i < payloadLength; i++)
            {
                payload.putByte(i, patternByte(psn, i));
            }
            builder.payload(payload, 0, payloadLength);
        }
        return builder.finish();
    }
}
