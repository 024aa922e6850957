package org.roce4j.transport.link.tunnel;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.SplittableRandom;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.roce4j.transport.TransportCounter;
import org.roce4j.transport.link.HostileInput;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.transport.link.LinkCounters;
import org.roce4j.wire.addr.Mac;
import org.roce4j.wire.header.ArpHeader;
import org.roce4j.wire.header.EthernetHeader;
import org.roce4j.wire.header.Ipv4Header;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The tunnel link's receive path under hostile frames (issue 13) from its peer socket on 127.0.0.1: runts, random
 * bytes, truncated and padded RoCE frames, lying IP/UDP lengths, IP options and fragments, foreign EtherTypes,
 * empty VLAN tags, broken ARP, IPv6 frames for other GIDs, bad ICRCs and datagrams up to 65,507 bytes; then an ARP
 * flood from 1,000 made-up neighbours. All are counted or dropped, none throws, and afterwards the engine takes a
 * UD SEND over IPv4 and one over IPv6 (to its link-local GID) and the link still resolves its real peer.
 */
class TunnelReceivePathTest
{
    private static final int FRAMES = 3000;
    private static final int ARP_FLOOD = 1000;
    private static final int LINK_IP = Ipv4Header.parseAddress("10.81.0.1");
    private static final LinkAddress PEER = new LinkAddress(0x02_00_0A_51_00_02L, Ipv4Header.parseAddress("10.81.0.2"));

    @Test
    void hostileFramesAreCountedOrDroppedAndTheLinkStillDeliversAndResolves() throws Exception
    {
        final long seed = Long.getLong("roce4j.seed", 0x7A_11E1L);
        System.out.println("TunnelReceivePathTest seed=0x" + Long.toHexString(seed) + " (rerun with -Droce4j.seed=N)");
        final SplittableRandom random = new SplittableRandom(seed);
        final UnsafeBuffer frame = new UnsafeBuffer(ByteBuffer.allocateDirect(70_000));
        try (DatagramChannel peer = DatagramChannel.open())
        {
            peer.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            peer.configureBlocking(false);
            final TunnelLink link = TunnelLink.open(TunnelLinkConfig.of("127.0.0.1", 0, "127.0.0.1",
                ((InetSocketAddress)peer.getLocalAddress()).getPort(), LINK_IP));
            final InetSocketAddress to = new InetSocketAddress(InetAddress.getLoopbackAddress(), link.localPort());
            try (HostileInput target = new HostileInput(link))
            {
                final LinkCounters counters = link.counters();
                for (int i = 0; i < FRAMES; i++)
                {
                    final int length = target.garbage(random, frame, PEER);
                    peer.send(frame.byteBuffer().duplicate().position(0).limit(length), to);
                    if (0 == i % 32)
                    {
                        target.runUntilSeen(i + 1, () -> arrivals(counters));
                    }
                }
                target.runUntilSeen(FRAMES, () -> arrivals(counters));
                final long repliesBefore = counters.get(LinkCounter.ARP_REPLIES_SENT);
                for (int i = 0; i < ARP_FLOOD; i++)
                {
                    final int length = arp(frame, ArpHeader.OPERATION_REQUEST, Mac.BROADCAST,
                        0x02_00_00_00_10_00L + i, Ipv4Header.parseAddress("10.81.1.0") + i, 0L, LINK_IP);
                    peer.send(frame.byteBuffer().duplicate().position(0).limit(length), to);
                    if (0 == i % 32)
                    {
                        target.runUntilSeen(FRAMES + i + 1, () -> arrivals(counters));
                    }
                }
                target.runUntilSeen(FRAMES + ARP_FLOOD, () -> arrivals(counters));

                final byte[] payload4 = new byte[200];
                final byte[] payload6 = new byte[333];
                random.nextBytes(payload4);
                random.nextBytes(payload6);
                int length = target.udSend(frame, PEER, false, payload4);
                peer.send(frame.byteBuffer().duplicate().position(0).limit(length), to);
                length = target.udSend(frame, PEER, true, payload6);
                peer.send(frame.byteBuffer().duplicate().position(0).limit(length), to);
                target.runUntil(() -> target.received().size() >= 2, "the two well-formed SENDs");

                assertEquals(2, target.received().size(), "no hostile frame completed a receive");
                target.assertReceived(0, payload4);
                target.assertReceived(1, payload6);
                target.assertNoInternalError();
                final String all = target.engine().counters() + " / " + counters;
                assertTrue(counters.get(LinkCounter.RECEIVE_FILTERED) > 0, "runts: " + all);
                assertTrue(target.engine().counters().get(TransportCounter.DROP_BAD_ICRC) > 0, all);
                // IPv6 frames for GIDs that are not the link's: the link owns its addresses and filters them (as
                // pcap's BPF filter and its IPv4 check always did); the engine never sees them.
                assertEquals(0, target.engine().counters().get(TransportCounter.DROP_NOT_OUR_GID), "IPv6: " + all);
                assertTrue(target.engine().counters().get(TransportCounter.DROP_MALFORMED_FRAME) > 0, all);
                assertEquals(ARP_FLOOD, counters.get(LinkCounter.ARP_REPLIES_SENT) - repliesBefore, all);

                // The flood filled the neighbour table; the link still resolves its real peer.
                link.resolve(PEER.ipv4());
                final ByteBuffer in = ByteBuffer.allocate(2048);
                target.runUntil(() ->
                {
                    answerArp(peer, in, to);
                    return PEER.mac() == link.resolvedMac(PEER.ipv4());
                }, "the peer's ARP reply");
            }
        }
    }

    private static int arp(final UnsafeBuffer out, final int operation, final long destination, final long senderMac,
        final int senderIp, final long targetMac, final int targetIp)
    {
        out.setMemory(0, EthernetHeader.MIN_FRAME_LENGTH, (byte)0);
        new EthernetHeader().wrap(out, 0).destination(destination).source(senderMac)
            .etherType(EthernetHeader.ETHERTYPE_ARP);
        new ArpHeader().wrap(out, EthernetHeader.LENGTH).ethernetIpv4(operation).senderMac(senderMac)
            .senderIp(senderIp).targetMac(targetMac).targetIp(targetIp);
        return EthernetHeader.MIN_FRAME_LENGTH;
    }

    /** The peer side: answer an ARP request for the peer's address, if one arrived. */
    private static void answerArp(final DatagramChannel peer, final ByteBuffer in, final InetSocketAddress to)
    {
        try
        {
            in.clear();
            if (null == peer.receive(in))
            {
                return;
            }
            final UnsafeBuffer request = new UnsafeBuffer(in.array(), 0, in.position());
            if (in.position() < EthernetHeader.LENGTH + ArpHeader.LENGTH ||
                EthernetHeader.ETHERTYPE_ARP != new EthernetHeader().wrap(request, 0).etherType())
            {
                return;
            }
            final ArpHeader arp = new ArpHeader().wrap(request, EthernetHeader.LENGTH);
            if (ArpHeader.OPERATION_REQUEST == arp.operation() && PEER.ipv4() == arp.targetIp())
            {
                final UnsafeBuffer reply = new UnsafeBuffer(new byte[EthernetHeader.MIN_FRAME_LENGTH]);
                final int length = arp(reply, ArpHeader.OPERATION_REPLY, arp.senderMac(), PEER.mac(), PEER.ipv4(),
                    arp.senderMac(), arp.senderIp());
                peer.send(ByteBuffer.wrap(reply.byteArray(), 0, length), to);
            }
        }
        catch (final java.io.IOException ex)
        {
            throw new java.io.UncheckedIOException(ex);
        }
    }

    private static long arrivals(final LinkCounters counters)
    {
        return counters.get(LinkCounter.FRAMES_RECEIVED) + counters.get(LinkCounter.RECEIVE_FILTERED) +
            counters.get(LinkCounter.RECEIVE_ERRORS) + counters.get(LinkCounter.ARP_RECEIVED) +
            counters.get(LinkCounter.ND_RECEIVED);
    }
}
