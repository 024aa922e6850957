package org.roce4j.transport.link.tunnel;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;

import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.roce4j.transport.link.FrameHandler;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrameBuilder;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.addr.Mac;
import org.roce4j.wire.header.ArpHeader;
import org.roce4j.wire.header.EthernetHeader;
import org.roce4j.wire.header.Ipv4Header;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;
/**
 * What the tunnel link tests share: two tunnel links talking to each other over loopback UDP, as a QEMU guest and
 * roce4j do, the frames each received, and the frames the tests build and check.
 */
abstract class TunnelLinkFixture
{
    static final int IP_A = Ipv4Header.parseAddress("10.77.0.1");
    static final int IP_B = Ipv4Header.parseAddress("10.77.0.2");
    static final long DEADLINE_NS = TimeUnit.SECONDS.toNanos(10);

    final List<AutoCloseable> toClose = new ArrayList<>();
    final RoceFrameBuilder builder = new RoceFrameBuilder();
    final RoceFrameParser parser = new RoceFrameParser();
    final UnsafeBuffer scratch = new UnsafeBuffer(ByteBuffer.allocateDirect(16384));
    final List<byte[]> receivedByA = new ArrayList<>();
    final List<byte[]> receivedByB = new ArrayList<>();
    final FrameHandler collectA = (buffer, offset, length) -> receivedByA.add(copy(buffer, offset, length));
    final FrameHandler collectB = (buffer, offset, length) -> receivedByB.add(copy(buffer, offset, length));

    @AfterEach
    void closeAll() throws Exception
    {
        for (final AutoCloseable closeable : toClose)
        {
            closeable.close();
        }
    }

    TunnelLink[] pair(final UnaryOperator<TunnelLinkConfig> customize) throws IOException
    {
        final int portA = freeUdpPort();
        final int portB = freeUdpPort();
        final TunnelLink a = track(TunnelLink.open(
            customize.apply(TunnelLinkConfig.of("127.0.0.1", portA, "127.0.0.1", portB, IP_A))));
        final TunnelLink b = track(TunnelLink.open(
            customize.apply(TunnelLinkConfig.of("127.0.0.1", portB, "127.0.0.1", portA, IP_B))));
        return new TunnelLink[] {a, b};
    }

    boolean resolveNow(final TunnelLink[] pair)
    {
        pumpUntil(pair, () -> Mac.NONE != pair[0].resolvedMac(IP_B));
        receivedByA.clear();
        receivedByB.clear();
        return true;
    }

    void pumpUntil(final TunnelLink[] pair, final BooleanSupplier done)
    {
        final long deadline = System.nanoTime() + DEADLINE_NS;
        while (!done.getAsBoolean())
        {
            pair[0].flush();
            pair[1].flush();
            pair[0].poll(collectA, 16);
            pair[1].poll(collectB, 16);
            if (System.nanoTime() - deadline > 0)
            {
                fail("condition not met within 10 s; A " + pair[0].counters() + " B " + pair[1].counters());
            }
            Thread.onSpinWait();
        }
    }

    TunnelLink track(final TunnelLink link)
    {
        toClose.add(link);
        return link;
    }

    int buildFrame(
        final MutableDirectBuffer buffer, final long destinationMac, final long sourceMac, final int sourceIp,
        final int destinationIp, final int psn, final int payloadLength)
    {
        return buildFrame(buffer, 0, destinationMac, sourceMac, sourceIp, destinationIp, psn, payloadLength);
    }

    int buildFrame(
        final MutableDirectBuffer buffer, final int offset, final long destinationMac, final long sourceMac,
        final int sourceIp, final int destinationIp, final int psn, final int payloadLength)
    {
        builder.wrap(buffer, offset)
            .ethernet(destinationMac, sourceMac)
            .ipv4(sourceIp, destinationIp)
            .udp(0xC000)
            .bth(Opcode.RC_SEND_ONLY, 0x11, psn);
        final int payloadOffset = builder.payloadOffset();
        for (int i = 0; i < payloadLength; i++)
        {
            buffer.putByte(payloadOffset + i, (byte)i);
        }
        return builder.payloadLength(payloadLength).finish();
    }

    void assertFrame(final byte[] frame, final long destinationMac, final long sourceMac, final int psn)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(frame);
        assertEquals(FrameStatus.OK, parser.parse(buffer, 0, frame.length), "parse with ICRC check");
        assertEquals(destinationMac, parser.ethernet().destination(), "destination MAC filled in by the link");
        assertEquals(sourceMac, parser.ethernet().source());
        assertEquals(psn, parser.bth().psn());
    }

    static int etherType(final byte[] frame)
    {
        return new EthernetHeader().wrap(new UnsafeBuffer(frame), 0).etherType();
    }

    static ByteBuffer arpRequest(final long senderMac, final int senderIp, final int targetIp)
    {
        final UnsafeBuffer frame = new UnsafeBuffer(new byte[EthernetHeader.MIN_FRAME_LENGTH]);
        new EthernetHeader().wrap(frame, 0).destination(Mac.BROADCAST).source(senderMac)
            .etherType(EthernetHeader.ETHERTYPE_ARP);
        new ArpHeader().wrap(frame, EthernetHeader.LENGTH).ethernetIpv4(ArpHeader.OPERATION_REQUEST)
            .senderMac(senderMac).senderIp(senderIp).targetMac(0).targetIp(targetIp);
        return ByteBuffer.wrap(frame.byteArray());
    }

    static byte[] copy(final MutableDirectBuffer buffer, final int offset, final int length)
    {
        final byte[] bytes = new byte[length];
        buffer.getBytes(offset, bytes);
        return bytes;
    }

    static int freeUdpPort() throws IOException
    {
        try (DatagramChannel probe = DatagramChannel.open())
        {
            probe.bind(new InetSocketAddress("127.0.0.1", 0));
            return ((InetSocketAddress)probe.getLocalAddress()).getPort();
        }
    }
}
