package org.roce4j.transport.link.pcap;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.pcap4j.core.BpfProgram;
import org.pcap4j.core.PcapHandle;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.transport.link.NetworkNamespace;
import org.roce4j.transport.link.LinkTestFrames;
import org.roce4j.transport.link.ethernet.NeighbourState;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.addr.Mac;
import org.roce4j.wire.header.ArpHeader;
import org.roce4j.wire.header.EthernetHeader;
import org.roce4j.wire.header.Ipv4Header;

import static java.nio.ByteOrder.BIG_ENDIAN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The pcap link's layer 2 against a raw capture handle on the other end of a veth pair (inside a namespace made
 * for the run): it answers ARP, resolves peers by ARP before sending, and gives up on a silent peer after three
 * requests (the spec says arp-retries=3,arp-interval-ms=1000, the kernel's own defaults), counting the frames it
 * drops.
 */
class PcapArpTest
{
    private static final String LINK_END = "arp0";
    private static final String RAW_END = "arp1";
    private static final int LINK_IP = Ipv4Header.parseAddress("10.78.0.1");
    private static final int RAW_IP = Ipv4Header.parseAddress("10.78.0.2");
    private static final int PEER_IP = Ipv4Header.parseAddress("10.78.0.3");
    private static final int SILENT_IP = Ipv4Header.parseAddress("10.78.0.99");
    private static final long PEER_MAC = 0x02_00_00_00_00_33L;
    private static final long SECOND_NS = 1_000_000_000L;
    private static NetworkNamespace namespace;
    private static long rawMac;

    private final AtomicLong clock = new AtomicLong(1_000 * SECOND_NS);
    private PcapLink link;
    private PcapHandle raw;
    private final UnsafeBuffer out = new UnsafeBuffer(new byte[60]);

    @BeforeAll
    static void createVethPair()
    {
        namespace = NetworkNamespace.withPcapVethPair("arp", LINK_END, RAW_END, 1500);
        rawMac = namespace.mac(RAW_END);
    }

    @AfterAll
    static void removeNamespace()
    {
        if (null != namespace)
        {
            namespace.close();
        }
    }

    @BeforeEach
    void open()
    {
        link = namespace.call(() -> PcapLink.open(
            PcapLinkConfig.parse("pcap:" + LINK_END + ",ip=" + Ipv4Header.addressToString(LINK_IP) +
                ",arp-retries=3,arp-interval-ms=1000"), clock::get));
        raw = namespace.call(() ->
        {
            final PcapHandle handle = new PcapHandle.Builder(RAW_END).snaplen(16384).immediateMode(true)
                .timeoutMillis(10).direction(PcapHandle.PcapDirection.IN).build();
            handle.setFilter("arp or udp dst port 4791", BpfProgram.BpfCompileMode.OPTIMIZE);
            handle.setBlockingMode(PcapHandle.BlockingMode.NONBLOCKING);
            return handle;
        });
    }

    @AfterEach
    void close()
    {
        if (null != link)
        {
            link.close();
        }
        if (null != raw)
        {
            raw.close();
        }
    }

    @Test
    void answersArpForItsAddress() throws Exception
    {
        sendArp(ArpHeader.OPERATION_REQUEST, Mac.BROADCAST, rawMac, RAW_IP, 0L, LINK_IP);
        final UnsafeBuffer reply = awaitOnRaw(f -> isArp(f, ArpHeader.OPERATION_REPLY, LINK_IP), "an ARP reply");
        final ArpHeader arp = new ArpHeader().wrap(reply, EthernetHeader.LENGTH);
        assertEquals(rawMac, new EthernetHeader().wrap(reply, 0).destination(), "reply sent to the asker");
        assertEquals(link.address().mac(), new EthernetHeader().wrap(reply, 0).source(), "from the link's MAC");
        assertEquals(link.address().mac(), arp.senderMac(), "is-at the link's MAC");
        assertEquals(rawMac, arp.targetMac());
        assertEquals(RAW_IP, arp.targetIp());
        assertEquals(1, link.counters().get(LinkCounter.ARP_REPLIES_SENT));
        assertEquals(NeighbourState.REACHABLE, link.neighbourState(RAW_IP), "learnt the asker");
        assertEquals(rawMac, link.neighbourMac(RAW_IP));
    }

    @Test
    void ignoresArpForOtherAddresses() throws Exception
    {
        sendArp(ArpHeader.OPERATION_REQUEST, Mac.BROADCAST, rawMac, RAW_IP, 0L, PEER_IP);
        sendArp(ArpHeader.OPERATION_REQUEST, Mac.BROADCAST, rawMac, RAW_IP, 0L, LINK_IP);
        awaitOnRaw(f -> isArp(f, ArpHeader.OPERATION_REPLY, LINK_IP), "the reply to the second request");
        assertEquals(2, link.counters().get(LinkCounter.ARP_RECEIVED));
        assertEquals(1, link.counters().get(LinkCounter.ARP_REPLIES_SENT), "no reply for someone else's address");
    }

    @Test
    void resolvesAPeerBeforeSendingToIt() throws Exception
    {
        LinkTestFrames.create().send(link, null, null, PEER_IP, 42, 0x77, 0xC001, 100);
        assertEquals(NeighbourState.INCOMPLETE, link.neighbourState(PEER_IP));
        assertEquals(0, link.counters().get(LinkCounter.FRAMES_SENT), "held until resolved");

        final UnsafeBuffer request = awaitOnRaw(f -> isArp(f, ArpHeader.OPERATION_REQUEST, LINK_IP), "a request");
        final ArpHeader arp = new ArpHeader().wrap(request, EthernetHeader.LENGTH);
        assertEquals(PEER_IP, arp.targetIp(), "who-has the peer");
        assertEquals(Mac.BROADCAST, new EthernetHeader().wrap(request, 0).destination(), "broadcast");

        sendArp(ArpHeader.OPERATION_REPLY, link.address().mac(), PEER_MAC, PEER_IP, link.address().mac(), LINK_IP);
        final UnsafeBuffer frame = awaitOnRaw(PcapArpTest::isRoce, "the held frame");
        assertEquals(PEER_MAC, new EthernetHeader().wrap(frame, 0).destination(), "sent to the resolved MAC");
        final RoceFrameParser parser = new RoceFrameParser();
        assertEquals(FrameStatus.OK, parser.parse(frame, 0, frame.capacity(), true), "ICRC intact on the wire");
        assertEquals(0x77, parser.bth().destQp());
        assertEquals(NeighbourState.REACHABLE, link.neighbourState(PEER_IP));
        assertEquals(1, link.counters().get(LinkCounter.FRAMES_SENT));
        assertEquals(1, link.counters().get(LinkCounter.ARP_REQUESTS_SENT));
    }

    @Test
    void givesUpOnASilentPeerAndCountsTheDrops() throws Exception
    {
        final LinkTestFrames frames = LinkTestFrames.create();
        for (int i = 0; i < 3; i++)
        {
            frames.send(link, null, null, SILENT_IP, i, 0x10, 0xC000, 64);
        }
        for (int second = 1; second <= 3; second++)
        {
            clock.addAndGet(SECOND_NS);
            link.flush();
        }
        assertEquals(NeighbourState.FAILED, link.neighbourState(SILENT_IP));
        assertEquals(3, link.counters().get(LinkCounter.ARP_REQUESTS_SENT), "three requests");
        assertEquals(3, link.counters().get(LinkCounter.SEND_UNRESOLVED), "three frames dropped");
        assertEquals(0, link.counters().get(LinkCounter.FRAMES_SENT));
        int seen = 0;
        while (seen < 3)
        {
            awaitOnRaw(f -> isArp(f, ArpHeader.OPERATION_REQUEST, LINK_IP), "request " + (seen + 1));
            seen++;
        }
    }

    private void sendArp(
        final int operation, final long ethernetDestination, final long senderMac, final int senderIp,
        final long targetMac, final int targetIp) throws Exception
    {
        out.setMemory(0, 60, (byte)0);
        new EthernetHeader().wrap(out, 0).destination(ethernetDestination).source(rawMac)
            .etherType(EthernetHeader.ETHERTYPE_ARP);
        new ArpHeader().wrap(out, EthernetHeader.LENGTH).ethernetIpv4(operation).senderMac(senderMac)
            .senderIp(senderIp).targetMac(targetMac).targetIp(targetIp);
        raw.sendPacket(out.byteArray(), 60);
    }

    private UnsafeBuffer awaitOnRaw(final Predicate<UnsafeBuffer> wanted, final String what) throws Exception
    {
        final long deadline = System.nanoTime() + LinkTestFrames.PATIENCE_NS;
        while (System.nanoTime() - deadline < 0)
        {
            link.poll(LinkTestFrames.IGNORE, 16);
            link.flush();
            final byte[] captured = raw.getNextRawPacket();
            if (null != captured)
            {
                final UnsafeBuffer frame = new UnsafeBuffer(captured);
                if (wanted.test(frame))
                {
                    return frame;
                }
            }
        }
        fail("no " + what + " seen on " + RAW_END + "; link counters: " + link.counters());
        return null;
    }

    private static boolean isArp(final UnsafeBuffer frame, final int operation, final int senderIp)
    {
        return frame.capacity() >= EthernetHeader.LENGTH + ArpHeader.LENGTH &&
            EthernetHeader.ETHERTYPE_ARP == (frame.getShort(EthernetHeader.TYPE_OFFSET, BIG_ENDIAN) & 0xFFFF) &&
            operation == new ArpHeader().wrap(frame, EthernetHeader.LENGTH).operation() &&
            senderIp == new ArpHeader().wrap(frame, EthernetHeader.LENGTH).senderIp();
    }

    private static boolean isRoce(final UnsafeBuffer frame)
    {
        return EthernetHeader.ETHERTYPE_IPV4 == (frame.getShort(EthernetHeader.TYPE_OFFSET, BIG_ENDIAN) & 0xFFFF);
    }
}
