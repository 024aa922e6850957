package org.roce4j.verbs;

import java.util.List;

import org.agrona.concurrent.AtomicBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.roce4j.ib.AhAttributes;
import org.roce4j.ib.AsyncEvent;
import org.roce4j.ib.AsyncEventType;
import org.roce4j.ib.QpType;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WcOpcode;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.ib.WrOpcode;
import org.roce4j.transport.TransportCounter;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.wire.header.Ipv4Header;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.roce4j.verbs.VerbsFixture.ALL_ACCESS;
import static org.roce4j.verbs.VerbsFixture.drain;
import static org.roce4j.verbs.VerbsFixture.register;

/**
 * UC and UD transfers, the UD GRH area, Q_Key and size rules, and a shared receive queue with its limit event.
 */
class UcUdSrqTest
{
    private final VerbsFixture fx = new VerbsFixture();

    @AfterEach
    void close()
    {
        fx.assertNoInternalErrors();
        fx.close();
    }

    @Test
    void ucSendAndWrite()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.UC);
        final MemoryRegion src = register(fx.pdA, 3000, ALL_ACCESS);
        final MemoryRegion dst = register(fx.pdB, 6000, ALL_ACCESS);
        for (int i = 0; i < 3000; i++)
        {
            src.buffer().putByte(i, (byte)(i * 13));
        }
        c.b.qp.postRecv(new RecvWorkRequest().wrId(1).addSge(dst, 0, 3000));
        c.a.qp.postSend(new SendWorkRequest().wrId(10).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
            .addSge(src, 0, 3000)
            .next(new SendWorkRequest().wrId(11).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .addSge(src, 0, 3000).rdma(dst.address(3000), dst.rkey())));

        final WorkCompletion recv = drain(c.b.recvCq, 1).get(0);
        assertEquals(WcStatus.SUCCESS, recv.status());
        assertEquals(3000, recv.byteLen());
        final List<WorkCompletion> sends = drain(c.a.sendCq, 2);
        assertEquals(10, sends.get(0).wrId());
        assertEquals(WcOpcode.SEND, sends.get(0).opcode());
        assertEquals(11, sends.get(1).wrId());
        assertEquals(WcOpcode.RDMA_WRITE, sends.get(1).opcode());
        fx.settle();
        for (int i = 0; i < 3000; i++)
        {
            assertEquals((byte)(i * 13), dst.buffer().getByte(i));
            assertEquals((byte)(i * 13), dst.buffer().getByte(3000 + i));
        }
        assertEquals(0, fx.a.counters().get(TransportCounter.ACKS_RECEIVED), "UC has no acknowledgements");
    }

    @Test
    void udSendPlacesTheGrhAreaInFront()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.UD);
        final MemoryRegion src = register(fx.pdA, 256, ALL_ACCESS);
        final MemoryRegion dst = register(fx.pdB, 256, ALL_ACCESS);
        for (int i = 0; i < 100; i++)
        {
            src.buffer().putByte(i, (byte)(i + 1));
        }
        dst.buffer().setMemory(0, 256, (byte)0x55);
        final AddressHandle ah = fx.pdA.createAh(new AhAttributes().dgid(fx.b.queryGid(1).high(),
            fx.b.queryGid(1).low()).sgidIndex(1));
        c.b.qp.postRecv(new RecvWorkRequest().wrId(3).addSge(dst, 0, 256));
        c.a.qp.postSend(new SendWorkRequest().wrId(4).opcode(WrOpcode.SEND_WITH_IMM).immData(0x0102_0304)
            .sendFlags(SendFlags.SIGNALED).addSge(src, 0, 100).ud(ah, c.b.qp.qpNum(), 0x1111_1111));

        final WorkCompletion recv = drain(c.b.recvCq, 1).get(0);
        assertEquals(WcStatus.SUCCESS, recv.status(), recv.toString());
        assertEquals(140, recv.byteLen(), "payload plus the 40-byte GRH area");
        assertTrue(recv.hasGrh());
        assertTrue(recv.hasImmediate());
        assertEquals(0x0102_0304, recv.immData());
        assertEquals(c.a.qp.qpNum(), recv.srcQp());
        final AtomicBuffer grh = dst.buffer();
        for (int i = 0; i < 20; i++)
        {
            assertEquals(0, grh.getByte(i), "reserved byte " + i + " of the GRH area");
        }
        assertEquals(0x45, grh.getByte(20) & 0xFF, "IPv4 version and IHL");
        assertEquals(17, grh.getByte(29), "IPv4 protocol UDP");
        assertEquals(Ipv4Header.parseAddress("10.0.0.1"), grh.getInt(32, java.nio.ByteOrder.BIG_ENDIAN));
        assertEquals(Ipv4Header.parseAddress("10.0.0.2"), grh.getInt(36, java.nio.ByteOrder.BIG_ENDIAN));
        for (int i = 0; i < 100; i++)
        {
            assertEquals((byte)(i + 1), grh.getByte(40 + i));
        }
        assertEquals(0x55, grh.getByte(140) & 0xFF, "nothing written past the message");
        assertEquals(WcStatus.SUCCESS, drain(c.a.sendCq, 1).get(0).status());
    }

    @Test
    void udOverIpv6CarriesTheIpv6HeaderInTheGrhArea()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.UD);
        final MemoryRegion src = register(fx.pdA, 64, ALL_ACCESS);
        final MemoryRegion dst = register(fx.pdB, 256, ALL_ACCESS);
        final AddressHandle ah = fx.pdA.createAh(new AhAttributes().dgid(fx.b.queryGid(0).high(),
            fx.b.queryGid(0).low()).sgidIndex(0));
        c.b.qp.postRecv(new RecvWorkRequest().wrId(3).addSge(dst, 0, 256));
        c.a.qp.postSend(new SendWorkRequest().wrId(4).addSge(src, 0, 10).ud(ah, c.b.qp.qpNum(), 0x1111_1111));
        final WorkCompletion recv = drain(c.b.recvCq, 1).get(0);
        assertEquals(WcStatus.SUCCESS, recv.status());
        assertEquals(50, recv.byteLen());
        assertEquals(6, (dst.buffer().getByte(0) & 0xF0) >> 4, "IPv6 version nibble");
        assertEquals(fx.b.queryGid(0).high(), dst.buffer().getLong(24, java.nio.ByteOrder.BIG_ENDIAN),
            "destination address at offset 24 of the IPv6 header");
    }

    @Test
    void udQkeyMismatchIsDroppedAndCounted()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.UD);
        final MemoryRegion src = register(fx.pdA, 64, ALL_ACCESS);
        final MemoryRegion dst = register(fx.pdB, 256, ALL_ACCESS);
        final AddressHandle ah = fx.pdA.createAh(new AhAttributes().dgid(fx.b.queryGid(1).high(),
            fx.b.queryGid(1).low()).sgidIndex(1));
        c.b.qp.postRecv(new RecvWorkRequest().wrId(3).addSge(dst, 0, 256));
        c.a.qp.postSend(new SendWorkRequest().wrId(4).sendFlags(SendFlags.SIGNALED).addSge(src, 0, 10)
            .ud(ah, c.b.qp.qpNum(), 0x2222_2222));
        assertEquals(WcStatus.SUCCESS, drain(c.a.sendCq, 1).get(0).status(), "UD completes once sent");
        fx.settle();
        assertEquals(1, fx.b.counters().get(TransportCounter.DROP_BAD_QKEY));
        assertEquals(0, c.b.recvCq.poll(VerbsFixture.completions(1)));
        assertEquals(1, c.b.qp.postedRecvWrs(), "the receive WR is still posted");

        // A Q_Key with the high bit set means "send the QP's own Q_Key" (IBA 10.2.5), which B accepts.
        c.a.qp.postSend(new SendWorkRequest().wrId(5).addSge(src, 0, 10).ud(ah, c.b.qp.qpNum(), 0x8000_0000));
        assertEquals(WcStatus.SUCCESS, drain(c.b.recvCq, 1).get(0).status());
    }

    @Test
    void oversizedUdSendCompletesWithoutSending()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.UD);
        final MemoryRegion src = register(fx.pdA, 4096, ALL_ACCESS);
        final AddressHandle ah = fx.pdA.createAh(new AhAttributes().dgid(fx.b.queryGid(1).high(),
            fx.b.queryGid(1).low()).sgidIndex(1));
        fx.settle();
        final long framesBefore = fx.a.counters().get(LinkCounter.FRAMES_SENT);
        c.a.qp.postSend(new SendWorkRequest().wrId(6).sendFlags(SendFlags.SIGNALED).addSge(src, 0, 2000)
            .ud(ah, c.b.qp.qpNum(), 0x1111_1111));
        final WorkCompletion wc = drain(c.a.sendCq, 1).get(0);
        assertEquals(WcStatus.SUCCESS, wc.status(), "IBA C10-93.1.1: silently dropped, reported as sent");
        fx.settle();
        assertEquals(framesBefore, fx.a.counters().get(LinkCounter.FRAMES_SENT), "no packet left");
        assertEquals(1, fx.a.counters().get(TransportCounter.UD_OVERSIZE_SENDS));
    }

    @Test
    void sharedReceiveQueueServesTwoQpsAndRaisesItsLimitEvent()
    {
        final SharedReceiveQueue srq = fx.pdB.createSrq(8, 2);
        final VerbsFixture.Pair one = fx.connect(QpType.RC, p -> { }, init -> { }, init -> init.srq(srq));
        final VerbsFixture.Pair two = fx.connect(QpType.RC, p -> { }, init -> { }, init -> init.srq(srq));
        final MemoryRegion src = register(fx.pdA, 64, ALL_ACCESS);
        final MemoryRegion dst = register(fx.pdB, 1024, ALL_ACCESS);
        for (int i = 0; i < 4; i++)
        {
            srq.postRecv(new RecvWorkRequest().wrId(100 + i).addSge(dst, 128L * i, 64).addSge(dst, 128L * i + 64, 64));
        }
        srq.modify(3);
        assertEquals(new SrqAttributes(8, 2, 3), srq.query());
        VerbsFixture.events(fx.b);

        one.a.qp.postSend(new SendWorkRequest().wrId(1).sendFlags(SendFlags.SIGNALED).addSge(src, 0, 64));
        final WorkCompletion first = drain(one.b.recvCq, 1).get(0);
        assertEquals(100, first.wrId());
        assertEquals(one.b.qp.qpNum(), first.qpNum());
        assertEquals(3, srq.available());
        assertTrue(VerbsFixture.events(fx.b).stream().noneMatch(e -> AsyncEventType.SRQ_LIMIT_REACHED == e.type()),
            "3 left is not below the limit of 3");

        two.a.qp.postSend(new SendWorkRequest().wrId(2).sendFlags(SendFlags.SIGNALED).addSge(src, 0, 64));
        final WorkCompletion second = drain(two.b.recvCq, 1).get(0);
        assertEquals(101, second.wrId(), "the next WR of the shared queue, whichever QP took it");
        assertEquals(two.b.qp.qpNum(), second.qpNum());
        final List<AsyncEvent> events = VerbsFixture.events(fx.b);
        assertEquals(List.of(new AsyncEvent(AsyncEventType.SRQ_LIMIT_REACHED, srq.handle())), events.stream()
            .filter(e -> AsyncEventType.SRQ_LIMIT_REACHED == e.type()).toList());
        assertEquals(0, srq.query().srqLimit(), "the limit disarms once it fired");
        drain(one.a.sendCq, 1);
        drain(two.a.sendCq, 1);
    }
}
