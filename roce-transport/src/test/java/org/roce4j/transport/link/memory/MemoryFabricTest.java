package org.roce4j.transport.link.memory;

import java.util.ArrayList;
import java.util.List;

import org.agrona.concurrent.CachedNanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.roce4j.transport.link.FrameRecorder;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.transport.link.TestFrames;
import org.roce4j.transport.link.fault.FaultRule;
import org.roce4j.transport.link.fault.FrameMutator;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrameBuilder;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.addr.Mac;
import org.roce4j.wire.header.EthernetHeader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MemoryFabricTest
{
    private static final LinkAddress A = TestFrames.address(1);
    private static final LinkAddress B = TestFrames.address(2);
    private static final LinkAddress C = TestFrames.address(3);
    private static final int QPN = 0x11;

    private final CachedNanoClock clock = new CachedNanoClock();
    private final TestFrames frames = new TestFrames();
    private final FrameRecorder recorder = new FrameRecorder();
    private MemoryFabric fabric = new MemoryFabric(clock);

    @AfterEach
    void closeFabric()
    {
        fabric.close();
    }

    @Test
    void deliversInOrderWithTheDestinationMacFilledIn()
    {
        final MemoryLink a = fabric.attach(A, 1500);
        final MemoryLink b = fabric.attach(B, 1500);
        final Opcode[] opcodes = {Opcode.RC_SEND_ONLY, Opcode.RC_ACKNOWLEDGE, Opcode.RC_RDMA_WRITE_ONLY,
            Opcode.RC_COMPARE_SWAP, Opcode.UD_SEND_ONLY};
        long bytes = 0;
        for (int psn = 0; psn < 100; psn++)
        {
            final Opcode opcode = opcodes[psn % opcodes.length];
            bytes += frames.send(a, B, opcode, QPN, psn, opcode.hasPayload() ? psn * 3 : 0);
        }

        assertEquals(100, recorder.drain(b));
        for (int psn = 0; psn < 100; psn++)
        {
            final FrameRecorder.Frame frame = recorder.frames().get(psn);
            assertEquals(FrameStatus.OK, frame.status(), "frame " + psn);
            assertEquals(psn, frame.psn());
            assertEquals(opcodes[psn % opcodes.length].code(), frame.opcode());
            assertEquals(B.mac(), frame.destinationMac());
        }
        assertEquals(100, a.counters().get(LinkCounter.FRAMES_SENT));
        assertEquals(bytes, a.counters().get(LinkCounter.BYTES_SENT));
        assertEquals(100, b.counters().get(LinkCounter.FRAMES_RECEIVED));
        assertEquals(bytes, b.counters().get(LinkCounter.BYTES_RECEIVED));
        assertEquals(0, a.fabricCounters().total());
        assertEquals(100, a.flush());
        assertEquals(0, a.flush());
    }

    @Test
    void floodsMulticastToEveryOtherPortWithTheGroupMac()
    {
        final MemoryLink a = fabric.attach(A, 1500);
        final MemoryLink b = fabric.attach(B, 1500);
        final MemoryLink c = fabric.attach(C, 1500);
        final Gid v4 = Gid.parse("239.1.2.3");
        final Gid v6 = Gid.parse("ff0e::1:2");
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[512]);
        final RoceFrameBuilder builder = new RoceFrameBuilder();
        builder.wrap(buffer, 0).ethernet(0L, A.mac());
        builder.ipv4(A.ipv4(), v4.ipv4());
        builder.udp(0xC000).bth(Opcode.UD_SEND_ONLY, 0xFF_FFFF, 1);
        builder.deth().qkey(1).srcQp(2);
        assertTrue(a.send(buffer, 0, builder.finish()));
        builder.wrap(buffer, 0).ethernet(0L, A.mac());
        builder.ipv6(Gid.linkLocal(A.mac()).high(), Gid.linkLocal(A.mac()).low(), v6.high(), v6.low());
        builder.udp(0xC000).bth(Opcode.UD_SEND_ONLY, 0xFF_FFFF, 2);
        builder.deth().qkey(1).srcQp(2);
        assertTrue(a.send(buffer, 0, builder.finish()));

        for (final MemoryLink port : List.of(b, c))
        {
            recorder.frames().clear();
            assertEquals(2, recorder.drain(port), "both groups reach " + port);
            assertEquals(Mac.parse("01:00:5e:01:02:03"), recorder.frames().get(0).destinationMac(), "RFC 1112");
            assertEquals(Mac.parse("33:33:00:01:00:02"), recorder.frames().get(1).destinationMac(), "RFC 2464");
            assertEquals(FrameStatus.OK, recorder.frames().get(0).status());
        }
        recorder.frames().clear();
        assertEquals(0, recorder.drain(a), "never back to the sender");
        assertEquals(0, a.fabricCounters().total(), "nothing dropped");
        assertEquals(2, a.counters().get(LinkCounter.FRAMES_SENT), "two frames committed, flooded as four copies");
    }

    @Test
    void aRuleThatRewritesOnePortsCopyOfAFloodLeavesTheOtherCopiesIntact()
    {
        final MemoryLink a = fabric.attach(A, 1500);
        final MemoryLink b = fabric.attach(B, 1500);
        final MemoryLink c = fabric.attach(C, 1500);
        // Flip the ICRC's last byte: the copy the rule hits fails its ICRC, every other copy must not.
        final FrameMutator flipIcrc = (buffer, offset, length, capacity) ->
        {
            buffer.putByte(offset + length - 1, (byte)~buffer.getByte(offset + length - 1));
            return length;
        };
        a.faults().addRule(FaultRule.mutate(flipIcrc).to(B).once());
        a.faults().addRule(FaultRule.mutate(flipIcrc).to(C).psn(2).once());
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[512]);
        final RoceFrameBuilder builder = new RoceFrameBuilder();
        for (int psn = 1; psn <= 2; psn++)
        {
            builder.wrap(buffer, 0).ethernet(0L, A.mac());
            builder.ipv4(A.ipv4(), Gid.parse("239.1.2.3").ipv4());
            builder.udp(0xC000).bth(Opcode.UD_SEND_ONLY, 0xFF_FFFF, psn);
            builder.deth().qkey(1).srcQp(2);
            assertTrue(a.send(buffer, 0, builder.finish()));
        }

        assertEquals(2, recorder.drain(b));
        assertEquals(List.of(FrameStatus.BAD_ICRC, FrameStatus.OK), statuses(), "B's first copy rewritten");
        recorder.frames().clear();
        assertEquals(2, recorder.drain(c));
        assertEquals(List.of(FrameStatus.OK, FrameStatus.BAD_ICRC), statuses(), "C's second copy rewritten");
        assertEquals(2, a.counters().get(LinkCounter.INJECTED_MUTATIONS));
    }

    private List<FrameStatus> statuses()
    {
        final List<FrameStatus> statuses = new ArrayList<>();
        for (final FrameRecorder.Frame frame : recorder.frames())
        {
            statuses.add(frame.status());
        }
        return statuses;
    }

    @Test
    void burstOfTenThousandFramesArrivesWhole()
    {
        final MemoryLink a = fabric.attach(A, 1500);
        final MemoryLink b = fabric.attach(B, 1500);
        final int count = 10_000;
        for (int psn = 0; psn < count; psn++)
        {
            frames.send(a, B, Opcode.RC_RDMA_WRITE_MIDDLE, QPN, psn, 64);
        }

        assertEquals(count, recorder.drain(b));
        final UnsafeBuffer expected = new UnsafeBuffer(new byte[2048]);
        for (int psn = 0; psn < count; psn++)
        {
            final FrameRecorder.Frame frame = recorder.frames().get(psn);
            assertEquals(FrameStatus.OK, frame.status());
            assertEquals(psn, frame.psn());
            final int length = frames.ipv4(expected, 0, A, B, Opcode.RC_RDMA_WRITE_MIDDLE, QPN, psn, 64);
            expected.putShort(0, (short)(B.mac() >>> 32), java.nio.ByteOrder.BIG_ENDIAN);
            expected.putInt(2, (int)B.mac(), java.nio.ByteOrder.BIG_ENDIAN);
            final byte[] bytes = new byte[length];
            expected.getBytes(0, bytes);
            assertArrayEquals(bytes, frame.bytes(), "frame " + psn);
        }
        assertEquals(0, a.fabricCounters().total());
    }

    @Test
    void carriesTheLargestFrames()
    {
        // IB MTU 4096 over IPv4 and IPv6: a WRITE_FIRST with RETH and 4096 bytes of payload.
        final MemoryLink a = fabric.attach(A, 4200);
        final MemoryLink b = fabric.attach(B, 4200);
        final int v4 = frames.send(a, B, Opcode.RC_RDMA_WRITE_FIRST, QPN, 1, 4096);
        assertEquals(14 + 20 + 8 + 12 + 16 + 4096 + 4, v4);
        final int index = a.tryClaim(a.maxFrameLength());
        final int v6 = frames.ipv6(a.sendBuffer(), index, A, B, true, Opcode.RC_RDMA_WRITE_FIRST, QPN, 2, 4096);
        a.commit(index, v6);
        assertEquals(v4 + 20, v6);

        assertEquals(2, recorder.drain(b));
        assertEquals(FrameStatus.OK, recorder.frames().get(0).status());
        assertEquals(v4, recorder.frames().get(0).bytes().length);
        assertEquals(FrameStatus.OK, recorder.frames().get(1).status());
        assertEquals(v6, recorder.frames().get(1).bytes().length);

        // Jumbo: an IP packet of exactly 9000 bytes passes, 4 more bytes are counted and dropped.
        final MemoryLink c = fabric.attach(C, 9000);
        final MemoryLink d = fabric.attach(TestFrames.address(4), 9000);
        final int exact = frames.send(c, d.address(), Opcode.RC_SEND_ONLY, QPN, 3, 9000 - 20 - 8 - 12 - 4);
        assertEquals(9014, exact);
        frames.send(c, d.address(), Opcode.RC_SEND_ONLY, QPN, 4, 9000 - 20 - 8 - 12);
        recorder.clear();
        assertEquals(1, recorder.drain(d));
        assertEquals(FrameStatus.OK, recorder.frames().get(0).status());
        assertEquals(3, recorder.frames().get(0).psn());
        assertEquals(1, c.fabricCounters().get(FabricCounter.OVERSIZE));
        assertEquals(1, c.counters().get(LinkCounter.SEND_ERRORS));
    }

    @Test
    void dropsFramesLargerThanTheDestinationMtu()
    {
        final MemoryLink jumbo = fabric.attach(A, 9000);
        final MemoryLink small = fabric.attach(B, 1500);
        frames.send(jumbo, B, Opcode.RC_SEND_ONLY, QPN, 1, 4000);
        frames.send(jumbo, B, Opcode.RC_SEND_ONLY, QPN, 2, 1500 - 20 - 8 - 12 - 4);

        assertEquals(1, recorder.drain(small));
        assertEquals(2, recorder.frames().get(0).psn());
        assertEquals(1, jumbo.fabricCounters().get(FabricCounter.OVERSIZE));
    }

    @Test
    void enforcesOneClaimAtATime()
    {
        final MemoryLink a = fabric.attach(A, 1500);
        assertThrows(IllegalArgumentException.class, () -> a.tryClaim(1519));
        assertThrows(IllegalArgumentException.class, () -> a.tryClaim(0));
        assertThrows(IllegalStateException.class, () -> a.commit(0, 100));
        assertThrows(IllegalStateException.class, () -> a.abort(0));

        final int index = a.tryClaim(1518);
        final IllegalStateException twice = assertThrows(IllegalStateException.class, () -> a.tryClaim(100));
        assertTrue(twice.getMessage().contains("already outstanding"), twice.getMessage());
        assertThrows(IllegalArgumentException.class, () -> a.commit(index, 1519));
        assertThrows(IllegalArgumentException.class, () -> a.commit(index, 0));
        assertThrows(IllegalStateException.class, () -> a.commit(index + 1, 100));
        a.abort(index);
        assertEquals(0, a.counters().get(LinkCounter.FRAMES_SENT));

        fabric.attach(B, 1500);
        frames.send(a, B, Opcode.RC_SEND_ONLY, QPN, 0, 10);
        assertEquals(1, a.counters().get(LinkCounter.FRAMES_SENT));
    }

    @Test
    void switchesBetweenManyPorts()
    {
        fabric = MemoryFabric.builder().clock(clock).ringCapacityBytes(256 * 1024).build();
        final int portCount = 16;
        final int perPair = 50;
        final List<MemoryLink> ports = new ArrayList<>();
        for (int host = 1; host <= portCount; host++)
        {
            ports.add(fabric.attach(TestFrames.address(host), 1500));
        }
        assertEquals(portCount, fabric.ports().size());
        for (int i = 0; i < perPair; i++)
        {
            for (final MemoryLink from : ports)
            {
                for (final MemoryLink to : ports)
                {
                    if (from != to)
                    {
                        // The QPN names the sender so the receiver can check per-sender order.
                        frames.send(from, to.address(), Opcode.UC_SEND_ONLY, from.address().ipv4() & 0xFF, i, 32);
                    }
                }
            }
        }
        for (final MemoryLink to : ports)
        {
            recorder.clear();
            assertEquals((portCount - 1) * perPair, recorder.drain(to), to.name());
            final int[] nextPsn = new int[portCount + 1];
            for (final FrameRecorder.Frame frame : recorder.frames())
            {
                assertEquals(FrameStatus.OK, frame.status());
                assertEquals(to.address().mac(), frame.destinationMac());
                assertEquals(nextPsn[frame.qpn()]++, frame.psn(), "order from host " + frame.qpn());
            }
        }
    }

    @Test
    void closedPortsBecomeUnknownAndTheirAddressCanBeAttachedAgain()
    {
        final MemoryLink a = fabric.attach(A, 1500);
        final MemoryLink b = fabric.attach(B, 1500);
        assertThrows(IllegalStateException.class, () -> fabric.attach(B, 1500));
        assertThrows(IllegalStateException.class, () -> fabric.attach(new LinkAddress(B.mac(), C.ipv4()), 1500));
        assertThrows(IllegalStateException.class, () -> fabric.attach(new LinkAddress(C.mac(), B.ipv4()), 1500));

        frames.send(a, B, Opcode.RC_SEND_ONLY, QPN, 1, 8);
        b.close();
        b.close();
        assertTrue(b.isClosed());
        assertNull(fabric.port(B.ipv4()));
        assertEquals(0, b.poll(recorder, 10), "a closed port delivers nothing");
        assertThrows(IllegalStateException.class, () -> b.tryClaim(100));
        frames.send(a, B, Opcode.RC_SEND_ONLY, QPN, 2, 8);
        assertEquals(1, a.fabricCounters().get(FabricCounter.UNKNOWN_DESTINATION));
        assertEquals(1, a.counters().get(LinkCounter.SEND_UNRESOLVED));

        final MemoryLink again = fabric.attach(B, 1500);
        assertSame(again, fabric.port(B.ipv4()));
        frames.send(a, B, Opcode.RC_SEND_ONLY, QPN, 3, 8);
        assertEquals(1, recorder.drain(again));
        assertEquals(3, recorder.frames().get(0).psn(), "the new port gets only frames sent after it attached");
    }

    @Test
    void countsUnknownDestinations()
    {
        final MemoryLink a = fabric.attach(A, 1500);
        fabric.attach(B, 1500);
        frames.send(a, TestFrames.address(99), Opcode.RC_SEND_ONLY, QPN, 1, 8);
        // IPv6 addresses outside the two GID forms the fabric knows.
        final int index = a.tryClaim(a.maxFrameLength());
        final int length = new RoceFrameBuilder().wrap(a.sendBuffer(), index).ethernet(0, A.mac())
            .ipv6(0x2001_0DB8_0000_0000L, 1, 0x2001_0DB8_0000_0000L, 2).udp(TestFrames.SOURCE_PORT)
            .bth(Opcode.RC_SEND_ONLY, QPN, 2).finish();
        a.commit(index, length);
        // A link-local address whose interface identifier is not EUI-64 (no ff:fe in the middle).
        final int index2 = a.tryClaim(a.maxFrameLength());
        final int length2 = new RoceFrameBuilder().wrap(a.sendBuffer(), index2).ethernet(0, A.mac())
            .ipv6(Gid.LINK_LOCAL_HIGH, A.linkLocalLow(), Gid.LINK_LOCAL_HIGH, 0x1234)
            .udp(TestFrames.SOURCE_PORT).bth(Opcode.RC_SEND_ONLY, QPN, 3).finish();
        a.commit(index2, length2);

        assertEquals(3, a.fabricCounters().get(FabricCounter.UNKNOWN_DESTINATION));
        assertEquals(3, a.counters().get(LinkCounter.SEND_UNRESOLVED));
        assertEquals(3, a.counters().get(LinkCounter.FRAMES_SENT));
    }

    @Test
    void routesBothIpv6GidForms()
    {
        final MemoryLink a = fabric.attach(A, 1500);
        final MemoryLink b = fabric.attach(B, 1500);
        final MemoryLink c = fabric.attach(C, 1500);
        int index = a.tryClaim(a.maxFrameLength());
        a.commit(index, frames.ipv6(a.sendBuffer(), index, A, B, true, Opcode.RC_SEND_ONLY, QPN, 1, 100));
        index = a.tryClaim(a.maxFrameLength());
        a.commit(index, frames.ipv6(a.sendBuffer(), index, A, C, false, Opcode.RC_SEND_ONLY, QPN, 2, 100));

        final RoceFrameParser parser = new RoceFrameParser();
        assertEquals(1, b.poll((buffer, offset, length) ->
        {
            assertEquals(FrameStatus.OK, parser.parse(buffer, offset, length));
            assertEquals(6, parser.ipVersion());
            assertEquals(1, parser.bth().psn());
            assertEquals(B.mac(), parser.ethernet().destination());
        }, 10));
        assertEquals(1, c.poll((buffer, offset, length) ->
        {
            assertEquals(FrameStatus.OK, parser.parse(buffer, offset, length));
            assertEquals(2, parser.bth().psn());
            assertEquals(C.mac(), parser.ethernet().destination());
        }, 10));
    }

    @Test
    void routesVlanTaggedFrames()
    {
        final MemoryLink a = fabric.attach(A, 1500);
        final MemoryLink b = fabric.attach(B, 1500);
        final int index = a.tryClaim(a.maxFrameLength());
        final int length = new RoceFrameBuilder().wrap(a.sendBuffer(), index).ethernet(0, A.mac(), 3, 100)
            .ipv4(A.ipv4(), B.ipv4()).udp(TestFrames.SOURCE_PORT).bth(Opcode.RC_SEND_ONLY, QPN, 9)
            .payloadLength(1500 - 20 - 8 - 12 - 4).finish();
        assertEquals(1518, length);
        a.commit(index, length);

        assertEquals(1, recorder.drain(b));
        assertEquals(FrameStatus.OK, recorder.frames().get(0).status());
        assertEquals(9, recorder.frames().get(0).psn());
        assertEquals(B.mac(), recorder.frames().get(0).destinationMac());
    }

    @Test
    void dropsArpAndOtherFramesItCannotRoute()
    {
        final MemoryLink a = fabric.attach(A, 1500);
        final MemoryLink b = fabric.attach(B, 1500);
        final UnsafeBuffer arp = new UnsafeBuffer(new byte[60]);
        new EthernetHeader().wrap(arp, 0).destination(Mac.BROADCAST).source(A.mac())
            .etherType(EthernetHeader.ETHERTYPE_ARP);
        assertTrue(a.send(arp, 0, 42));
        assertTrue(a.send(arp, 0, 10));
        final UnsafeBuffer truncatedIp = new UnsafeBuffer(new byte[30]);
        new EthernetHeader().wrap(truncatedIp, 0).etherType(EthernetHeader.ETHERTYPE_IPV4);
        assertTrue(a.send(truncatedIp, 0, 30));

        assertEquals(0, b.poll(recorder, 10));
        assertEquals(3, a.fabricCounters().get(FabricCounter.NOT_ROUTABLE));
        assertEquals(3, a.counters().get(LinkCounter.SEND_UNRESOLVED));
    }

    @Test
    void switchesOnTheMacWhatIpCannotPlace()
    {
        final MemoryLink a = fabric.attach(A, 1500);
        final MemoryLink b = fabric.attach(B, 1500);
        // A RoCE packet for a foreign IP but B's MAC: B gets it (and its engine should drop it, as rxe does).
        final int index = a.tryClaim(200);
        final int length = frames.ipv4(a.sendBuffer(), index, A, TestFrames.address(77), Opcode.RC_SEND_ONLY, QPN,
            1, 16);
        new EthernetHeader().wrap(a.sendBuffer(), index).destination(B.mac());
        a.commit(index, length);
        // A non-IP frame unicast to B's MAC.
        final UnsafeBuffer other = new UnsafeBuffer(new byte[60]);
        new EthernetHeader().wrap(other, 0).destination(B.mac()).source(A.mac()).etherType(0x88B5);
        assertTrue(a.send(other, 0, 60));

        assertEquals(2, recorder.drain(b));
        assertEquals(FrameStatus.OK, recorder.frames().get(0).status());
        assertEquals(FrameStatus.NOT_IP, recorder.frames().get(1).status());
        assertEquals(0, a.fabricCounters().total());
    }

    @Test
    void deliversNonRoceIpPacketsAsIs()
    {
        final MemoryLink a = fabric.attach(A, 1500);
        final MemoryLink b = fabric.attach(B, 1500);
        final int index = a.tryClaim(200);
        final int length = frames.ipv4(a.sendBuffer(), index, A, B, Opcode.RC_SEND_ONLY, QPN, 1, 16);
        a.sendBuffer().putShort(index + 14 + 20 + 2, (short)4792, java.nio.ByteOrder.BIG_ENDIAN);
        a.commit(index, length);

        assertEquals(1, recorder.drain(b));
        assertEquals(FrameStatus.NOT_ROCE_PORT, recorder.frames().get(0).status());
    }

    @Test
    void countsFramesMeetingAFullRing()
    {
        fabric = MemoryFabric.builder().clock(clock).ringCapacityBytes(64 * 1024).build();
        final MemoryLink a = fabric.attach(A, 1500);
        final MemoryLink b = fabric.attach(B, 1500);
        final int sent = 200;
        for (int psn = 0; psn < sent; psn++)
        {
            frames.send(a, B, Opcode.RC_RDMA_WRITE_MIDDLE, QPN, psn, 1024);
        }
        final int received = recorder.drain(b);
        final long full = a.fabricCounters().get(FabricCounter.DESTINATION_FULL);

        assertTrue(full > 0, "a 64 KiB ring cannot take 200 KiB");
        assertEquals(sent, received + full);
        assertEquals(full, a.counters().get(LinkCounter.SEND_BACK_PRESSURE));
        for (int i = 0; i < received; i++)
        {
            assertEquals(i, recorder.frames().get(i).psn(), "the frames that fit arrive in order");
        }

        recorder.clear();
        frames.send(a, B, Opcode.RC_RDMA_WRITE_MIDDLE, QPN, 1000, 1024);
        assertEquals(1, recorder.drain(b), "room again once the receiver polled");
        assertEquals(1000, recorder.frames().get(0).psn());
    }

    @Test
    void mergesSendersIntoOneReceiverKeepingEachSendersOrder()
    {
        final MemoryLink a = fabric.attach(A, 1500);
        final MemoryLink b = fabric.attach(B, 1500);
        final MemoryLink c = fabric.attach(C, 1500);
        for (int psn = 0; psn < 100; psn++)
        {
            frames.send(a, C, Opcode.RC_SEND_ONLY, 1, psn, 8);
            frames.send(b, C, Opcode.RC_SEND_ONLY, 2, psn, 8);
            frames.send(c, C, Opcode.RC_SEND_ONLY, 3, psn, 8);
        }
        assertEquals(300, recorder.drain(c));
        final int[] next = new int[4];
        for (final FrameRecorder.Frame frame : recorder.frames())
        {
            assertEquals(next[frame.qpn()]++, frame.psn());
        }
        assertArrayEquals(new int[]{0, 100, 100, 100}, next);
    }

    @Test
    void pollHonoursMaxFrames()
    {
        final MemoryLink a = fabric.attach(A, 1500);
        final MemoryLink b = fabric.attach(B, 1500);
        for (int psn = 0; psn < 10; psn++)
        {
            frames.send(a, B, Opcode.RC_SEND_ONLY, QPN, psn, 8);
        }
        assertEquals(3, b.poll(recorder, 3));
        assertEquals(7, b.poll(recorder, 100));
        assertEquals(0, b.poll(recorder, 100));
        assertThrows(IllegalArgumentException.class, () -> b.poll(recorder, 0));
    }

    @Test
    void rejectsBadSettings()
    {
        assertThrows(IllegalArgumentException.class, () -> fabric.attach(A, 67));
        assertThrows(IllegalArgumentException.class, () -> fabric.attach(A, 65536));
        assertThrows(IllegalArgumentException.class, () -> fabric.attach(A, 1500, 100_000));
        final IllegalArgumentException small =
            assertThrows(IllegalArgumentException.class, () -> fabric.attach(A, 9000, 64 * 1024));
        assertTrue(small.getMessage().contains("cannot carry"), small.getMessage());
        assertThrows(IllegalArgumentException.class, () -> fabric.attach(new LinkAddress(1L << 48, 1), 1500));
        assertThrows(IllegalArgumentException.class,
            () -> fabric.attach(new LinkAddress(0x01_00_5E_00_00_01L, 1), 1500));
        assertThrows(IllegalArgumentException.class, () -> MemoryFabric.builder().ringCapacityBytes(3000));
        assertThrows(IllegalArgumentException.class, () -> MemoryFabric.builder().delaySlots(0));
        assertThrows(IllegalArgumentException.class, () -> MemoryFabric.builder().reorderSlots(-1));
        assertFalse(fabric.ports().iterator().hasNext());
    }

    @Test
    void describesItself()
    {
        final MemoryLink a = fabric.attach(A, 1500);
        assertEquals("memory:10.0.0.1", a.name());
        assertEquals(1500, a.mtu());
        assertEquals(1518, a.maxFrameLength());
        assertTrue(a.verifiesIcrc());
        assertSame(A, a.address());
        assertTrue(a.toString().startsWith("memory:10.0.0.1 mac=02:00:00:00:00:01"), a.toString());
        assertEquals("MemoryFabric{ports=1}", fabric.toString());
    }
}
