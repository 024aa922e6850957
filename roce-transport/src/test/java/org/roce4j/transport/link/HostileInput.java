package org.roce4j.transport.link;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.QpAttrMask;
import org.roce4j.ib.QpAttributes;
import org.roce4j.ib.QpCapabilities;
import org.roce4j.ib.QpState;
import org.roce4j.ib.QpType;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.transport.TransportCounter;
import org.roce4j.transport.provider.CqOps;
import org.roce4j.transport.provider.DeviceOps;
import org.roce4j.transport.provider.EngineConfig;
import org.roce4j.transport.provider.MrOps;
import org.roce4j.transport.provider.Provider;
import org.roce4j.transport.provider.QpOps;
import org.roce4j.transport.provider.WrView;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrameBuilder;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.addr.Mac;
import org.roce4j.wire.header.EthernetHeader;
import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.header.UdpHeader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Hostile input for a link's receive path (issue 13): an engine (opened through the provider interfaces, as the
 * Verbs API opens it) with one UD QP on the link under test, and a
 * seeded generator of what a hostile or broken sender puts on the wire: random bytes, truncated and padded RoCE
 * frames, lying IP and UDP lengths, IP options and fragments, wrong EtherTypes, VLAN tags without a body, broken
 * ARP, IPv6 frames for this and for other GIDs, runts and datagrams far larger than the MTU. After the flood the
 * engine must still take well-formed UD SENDs (IPv4 and, where the link carries them, IPv6), nothing may have
 * thrown and no malformed frame may have completed a receive.
 */
public final class HostileInput implements AutoCloseable
{
    /** Offset of the UDP payload (the BTH) in an IPv4 frame {@link #garbage} or {@link #udSend} built. */
    public static final int UDP_PAYLOAD_OFFSET = EthernetHeader.LENGTH + Ipv4Header.LENGTH + UdpHeader.LENGTH;
    /** Q_Key of the UD QP under test. */
    public static final int QKEY = 0x2222_3333;
    /** Receive buffers posted, each {@link #BUFFER} bytes (40-byte GRH area + payload). */
    private static final int RECEIVES = 32;
    private static final int BUFFER = 2048;
    /** A QPN the engine does not have: garbage aims there so that no mutation can land in a receive buffer. */
    private static final int NO_SUCH_QPN = 0x7777;
    /** Kinds of hostile frames {@link #garbage} builds. */
    private static final int KINDS = 14;

    private final Link link;
    private final DeviceOps engine;
    private final QpOps qp;
    private final CqOps recvCq;
    private final UnsafeBuffer memory = new UnsafeBuffer(ByteBuffer.allocateDirect(RECEIVES * BUFFER));
    private final MrOps buffers;
    private final RoceFrameBuilder builder = new RoceFrameBuilder();
    private final WorkCompletion[] batch = new WorkCompletion[16];
    private final List<WorkCompletion> received = new ArrayList<>();

    /**
     * @param link the link under test; the engine owns it from now on (closed by {@link #close()}).
     */
    public HostileInput(final Link link)
    {
        this.link = link;
        engine = Provider.load().open(link, new EngineConfig());
        final QpCapabilities caps = new QpCapabilities();
        caps.maxSendWr = 16;
        caps.maxRecvWr = RECEIVES;
        caps.maxSendSge = 1;
        caps.maxRecvSge = 1;
        recvCq = engine.createCq(256);
        qp = engine.createQp(QpType.UD, 1, caps, engine.createCq(64), recvCq, null, false);
        final QpAttributes attr = new QpAttributes();
        attr.qpState = QpState.INIT;
        attr.qkey = QKEY;
        engine.modifyQp(qp, attr, QpAttrMask.STATE | QpAttrMask.QKEY);
        attr.qpState = QpState.RTR;
        engine.modifyQp(qp, attr, QpAttrMask.STATE);
        attr.qpState = QpState.RTS;
        engine.modifyQp(qp, attr, QpAttrMask.STATE | QpAttrMask.SQ_PSN);
        buffers = engine.registerMemory(memory.addressOffset(), AccessFlags.LOCAL_WRITE, 1, memory);
        for (int i = 0; i < RECEIVES; i++)
        {
            qp.receiveQueue().postRecv(new Receive(i, buffers.iova() + (long)i * BUFFER, BUFFER, buffers.lkey()));
        }
        for (int i = 0; i < batch.length; i++)
        {
            batch[i] = new WorkCompletion();
        }
    }

    /**
     * @return the engine on the link.
     */
    public DeviceOps engine()
    {
        return engine;
    }

    /**
     * @return the UD QP's number.
     */
    public int qpn()
    {
        return qp.qpn();
    }

    /**
     * Run the engine until the condition holds (or fail after {@link LinkTestFrames#PATIENCE_NS}).
     *
     * @param condition to reach.
     * @param what      for the failure message.
     */
    public void runUntil(final BooleanSupplier condition, final String what)
    {
        final long deadline = System.nanoTime() + LinkTestFrames.PATIENCE_NS;
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - deadline > 0)
            {
                fail("gave up waiting for " + what + "; " + engine.counters() + " / " + link.counters());
            }
            engine.doWork();
            drain();
        }
    }

    /**
     * Run the engine until the link has counted {@code frames} arrivals of any outcome.
     *
     * @param frames    sent to the link.
     * @param arrivals  counts what the link has seen so far (delivered, filtered, errors, ARP...).
     */
    public void runUntilSeen(final long frames, final LongSupplier arrivals)
    {
        runUntil(() -> arrivals.getAsLong() >= frames, frames + " frames to arrive");
    }

    private void drain()
    {
        int n;
        while ((n = recvCq.poll(batch, 0, batch.length)) > 0)
        {
            for (int i = 0; i < n; i++)
            {
                final WorkCompletion copy = new WorkCompletion();
                final WorkCompletion wc = batch[i];
                copy.set(wc.wrId(), wc.status(), wc.opcode(), wc.byteLen(), wc.immData(), wc.qpNum(), wc.srcQp(),
                    wc.wcFlags(), wc.invalidatedRkey());
                received.add(copy);
            }
        }
    }

    /**
     * @return receive completions so far.
     */
    public List<WorkCompletion> received()
    {
        drain();
        return received;
    }

    /**
     * Check the n-th receive completion is a good one with this payload after the 40-byte GRH area.
     *
     * @param n       index.
     * @param payload expected bytes.
     */
    public void assertReceived(final int n, final byte[] payload)
    {
        final WorkCompletion wc = received().get(n);
        assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
        assertEquals(40 + payload.length, wc.byteLen(), wc.toString());
        final byte[] bytes = new byte[payload.length];
        memory.getBytes((int)wc.wrId() * BUFFER + 40, bytes);
        assertArrayEquals(payload, bytes);
    }

    /**
     * Nothing the hostile input did reached an exception inside the engine.
     */
    public void assertNoInternalError()
    {
        assertNull(engine.lastInternalError(), "engine bug on the receive path");
        assertEquals(0, engine.counters().get(TransportCounter.INTERNAL_ERRORS), engine.counters().toString());
    }

    /**
     * Build a well-formed UD SEND_ONLY to the QP under test.
     *
     * @param out      buffer.
     * @param from     sender's MAC and IPv4.
     * @param ipv6     true: over IPv6, from {@code from}'s link-local address to the link's link-local GID.
     * @param payload  bytes.
     * @return the frame's length.
     */
    public int udSend(final UnsafeBuffer out, final LinkAddress from, final boolean ipv6, final byte[] payload)
    {
        final LinkAddress to = link.address();
        builder.wrap(out, 0).ethernet(to.mac(), from.mac());
        if (ipv6)
        {
            builder.ipv6(Gid.LINK_LOCAL_HIGH, from.linkLocalLow(), Gid.LINK_LOCAL_HIGH,
                to.linkLocalLow());
        }
        else
        {
            builder.ipv4(from.ipv4(), to.ipv4());
        }
        builder.udp(0xC123).bth(Opcode.UD_SEND_ONLY, qp.qpn(), 7);
        builder.deth().qkey(QKEY).srcQp(0x99);
        builder.payload(new UnsafeBuffer(payload), 0, payload.length);
        return builder.finish();
    }

    /**
     * Build one hostile frame (a whole Ethernet frame; links that take UDP payloads send what follows the UDP
     * header, or garbage of their own for the kinds that have none).
     *
     * @param random the seeded source.
     * @param out    buffer of at least 65536 bytes.
     * @param from   the sender's address.
     * @return the frame's length (may be 0).
     */
    public int garbage(final SplittableRandom random, final UnsafeBuffer out, final LinkAddress from)
    {
        final LinkAddress to = link.address();
        final int kind = random.nextInt(KINDS);
        switch (kind)
        {
            case 0:
            {
                // Random bytes, addressed to the link's MAC so they get past its filter.
                final int length = random.nextInt(3000);
                fillRandom(random, out, 0, length);
                if (length >= 6)
                {
                    new EthernetHeader().wrap(out, 0).destination(to.mac());
                }
                return length;
            }
            case 1:
                // A runt: shorter than an Ethernet header.
                fillRandom(random, out, 0, 14);
                return random.nextInt(14);
            case 2:
            {
                // A well-formed RoCE frame cut short anywhere.
                final int length = validRoce(random, out, from, to, false);
                return random.nextInt(length);
            }
            case 3:
            {
                // A well-formed RoCE frame with trailing junk (Ethernet padding, or worse).
                final int length = validRoce(random, out, from, to, false);
                final int extra = 1 + random.nextInt(200);
                fillRandom(random, out, length, extra);
                return length + extra;
            }
            case 4:
            {
                // IP total length lies (longer or shorter than the frame).
                final int length = validRoce(random, out, from, to, false);
                out.putShort(EthernetHeader.LENGTH + 2, (short)random.nextInt(0x10000), ByteOrder.BIG_ENDIAN);
                return length;
            }
            case 5:
            {
                // UDP length lies.
                final int length = validRoce(random, out, from, to, false);
                out.putShort(EthernetHeader.LENGTH + Ipv4Header.LENGTH + 4, (short)random.nextInt(0x10000),
                    ByteOrder.BIG_ENDIAN);
                return length;
            }
            case 6:
            {
                // IPv4 options (IHL 6..15) or a fragment.
                final int length = validRoce(random, out, from, to, false);
                if (random.nextBoolean())
                {
                    out.putByte(EthernetHeader.LENGTH, (byte)(0x40 | (6 + random.nextInt(10))));
                }
                else
                {
                    out.putShort(EthernetHeader.LENGTH + 6, (short)(0x2000 | random.nextInt(0x2000)),
                        ByteOrder.BIG_ENDIAN);
                }
                return length;
            }
            case 7:
            {
                // Any EtherType but IPv4/IPv6/ARP (LLDP, MPLS, ...), with a RoCE-looking body.
                final int length = validRoce(random, out, from, to, false);
                final int[] types = {0x88CC, 0x8847, 0x88E5, 0x0800 ^ 0x0101, 0x9000};
                out.putShort(EthernetHeader.TYPE_OFFSET, (short)types[random.nextInt(types.length)],
                    ByteOrder.BIG_ENDIAN);
                return length;
            }
            case 8:
                // An 802.1Q tag and nothing after it, or a bare header with the VLAN EtherType.
                new EthernetHeader().wrap(out, 0).destination(to.mac()).source(from.mac())
                    .etherType(EthernetHeader.TPID_8021Q);
                return EthernetHeader.LENGTH + random.nextInt(EthernetHeader.VLAN_LENGTH - EthernetHeader.LENGTH + 1);
            case 9:
            {
                // ARP: truncated, or for another protocol, or a request with a random sender.
                new EthernetHeader().wrap(out, 0)
                    .destination(random.nextBoolean() ? to.mac() : Mac.BROADCAST)
                    .source(from.mac()).etherType(EthernetHeader.ETHERTYPE_ARP);
                fillRandom(random, out, EthernetHeader.LENGTH, 46);
                return EthernetHeader.LENGTH + random.nextInt(47);
            }
            case 10:
                // A well-formed IPv6 RoCE frame for a GID that is not the link's.
                return validRoce(random, out, from, to, true);
            case 11:
            {
                // IPv6 with random bytes after the header (next header, lengths, everything).
                final int length = validRoce(random, out, from, to, true);
                fillRandom(random, out, EthernetHeader.LENGTH + 4, random.nextInt(length - EthernetHeader.LENGTH - 4));
                return length;
            }
            case 12:
            {
                // Far longer than any MTU: up to the largest UDP datagram.
                final int length = validRoce(random, out, from, to, false);
                final int total = 9000 + random.nextInt(65507 - 9000);
                fillRandom(random, out, length, total - length);
                return total;
            }
            default:
            {
                // Valid headers, wrong ICRC (links that check it drop it; the UDP link cannot check it, and the
                // frame is for a QPN the engine lacks).
                final int length = validRoce(random, out, from, to, false);
                out.putInt(length - 4, random.nextInt());
                return length;
            }
        }
    }

    private int validRoce(final SplittableRandom random, final UnsafeBuffer out, final LinkAddress from,
        final LinkAddress to, final boolean otherIpv6Gid)
    {
        builder.wrap(out, 0).ethernet(to.mac(), from.mac());
        if (otherIpv6Gid)
        {
            builder.ipv6(Gid.LINK_LOCAL_HIGH, from.linkLocalLow(), 0x2001_0DB8_0000_0000L, random.nextLong());
        }
        else
        {
            builder.ipv4(from.ipv4(), to.ipv4());
        }
        final Opcode[] opcodes = Opcode.values();
        final Opcode opcode = opcodes[random.nextInt(opcodes.length)];
        builder.udp(0xC000 + random.nextInt(0x4000)).bth(opcode, NO_SUCH_QPN, random.nextInt(1 << 24));
        final int payload = opcode.hasPayload() ? random.nextInt(1025) : 0;
        final byte[] bytes = new byte[payload];
        random.nextBytes(bytes);
        builder.payload(new UnsafeBuffer(bytes), 0, payload);
        return builder.finish();
    }

    private static void fillRandom(final SplittableRandom random, final UnsafeBuffer out, final int from,
        final int length)
    {
        for (int i = 0; i < length; i++)
        {
            out.putByte(from + i, (byte)random.nextInt());
        }
    }

    /**
     * Close the engine and its link.
     */
    public void close()
    {
        engine.onClose();
    }

    /**
     * A receive WR of one SGE, as the provider reads it.
     *
     * @param wrId    the id.
     * @param address the buffer's I/O virtual address.
     * @param length  its length.
     * @param lkey    its region's key.
     */
    private record Receive(long wrId, long address, int length, int lkey) implements WrView
    {
        public int numSge()
        {
            return 1;
        }

        public long sgeAddress(final int index)
        {
            return address;
        }

        public int sgeLength(final int index)
        {
            return length;
        }

        public int sgeLkey(final int index)
        {
            return lkey;
        }
    }
}
