package org.roce4j.verbs;

import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Map;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.AhAttributes;
import org.roce4j.ib.AsyncEvent;
import org.roce4j.ib.AsyncEventType;
import org.roce4j.ib.Mtu;
import org.roce4j.ib.QpType;
import org.roce4j.ib.SendFlags;
import org.roce4j.transport.TransportCounter;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.wire.FrameStatus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Device queries, memory registration policy, resource lifetimes and their error messages.
 */
class DeviceAndResourceTest
{
    private final VerbsFixture fx = new VerbsFixture();

    @AfterEach
    void close()
    {
        fx.close();
    }

    @Test
    void queryDeviceReportsRxeLikeLimits()
    {
        final DeviceAttributes attr = fx.a.queryDevice();
        assertEquals(DeviceAttributes.MAX_QP_WR, attr.maxQpWr());
        assertEquals(32, attr.maxSge());
        assertEquals(32, attr.maxSgeRd());
        assertEquals(32_767, attr.maxCqe());
        assertEquals(Integer.MAX_VALUE, attr.maxMrSize());
        assertEquals(128, attr.maxQpRdAtom());
        assertEquals(128, attr.maxQpInitRdAtom());
        assertEquals(AtomicCapability.HCA, attr.atomicCap());
        assertEquals(27, attr.maxSrqSge());
        assertEquals(512, attr.maxInlineData());
        assertEquals(1L << 31, attr.maxMsgSize());
        assertEquals(1, attr.physPortCnt());
        assertEquals(0xFF_FFFF, attr.vendorId());
        assertEquals(fx.a.queryGid(0).low(), attr.nodeGuid(), "node GUID is the MAC's EUI-64");
    }

    @Test
    void queryPortAndGids()
    {
        final PortAttributes port = fx.a.queryPort();
        assertEquals(PortState.ACTIVE, port.state());
        assertEquals(Mtu.MTU_4096, port.maxMtu());
        assertEquals(Mtu.MTU_1024, port.activeMtu(), "1500-byte link MTU gives 1024, as rxe");
        assertEquals(2, port.gidTblLen());
        assertEquals(PortAttributes.LINK_LAYER_ETHERNET, port.linkLayer());
        assertThrows(IllegalArgumentException.class, () -> fx.a.queryPort(2));

        assertEquals("fe80::ff:fe00:a", fx.a.queryGid(0).toString(), "EUI-64 of 02:00:00:00:00:0a");
        assertEquals("::ffff:10.0.0.1", fx.a.queryGid(1).toString());
        assertTrue(fx.a.queryGid(1).isIpv4Mapped());
        assertFalse(fx.a.queryGid(0).isIpv4Mapped());
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> fx.a.queryGid(2));
        assertTrue(ex.getMessage().startsWith("GID index 2 is not in the GID table (2 entries"), ex.getMessage());

        try (VerbsFixture jumbo = new VerbsFixture(9000))
        {
            assertEquals(Mtu.MTU_4096, jumbo.a.queryPort().activeMtu());
        }
    }

    @Test
    void registrationExposesKeysAndRange()
    {
        final ByteBuffer memory = ByteBuffer.allocateDirect(4096);
        memory.position(100).limit(1100);
        final MemoryRegion mr = fx.pdA.registerMemory(memory, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ);
        assertEquals(1000, mr.length());
        assertEquals(new UnsafeBuffer(memory, 100, 1000).addressOffset(), mr.iova(), "default IOVA: native address");
        assertEquals(AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ, mr.access());
        assertTrue(0 != mr.lkey() && 0 != mr.rkey());
        assertEquals(mr.iova() + 10, mr.address(10));
        mr.buffer().putByte(0, (byte)42);
        assertEquals(42, memory.get(100), "the region is the buffer's memory, not a copy");

        final MemoryRegion explicit = fx.pdA.registerMemory(new UnsafeBuffer(ByteBuffer.allocateDirect(64)),
            AccessFlags.LOCAL_WRITE, 0x1000_0000L);
        assertEquals(0x1000_0000L, explicit.iova());
        assertEquals(64, explicit.length());

        mr.deregister();
        assertFalse(mr.isValid());
        final IllegalStateException twice = assertThrows(IllegalStateException.class, mr::deregister);
        assertTrue(twice.getMessage().endsWith("is already deregistered"), twice.getMessage());
    }

    @Test
    void registrationRefusesBadArguments()
    {
        final ByteBuffer direct = ByteBuffer.allocateDirect(64);
        assertEquals("REMOTE_WRITE requires LOCAL_WRITE (ibv_reg_mr(3)); access was REMOTE_WRITE|REMOTE_READ",
            assertThrows(IllegalArgumentException.class, () -> fx.pdA.registerMemory(direct,
                AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ)).getMessage());
        assertEquals("REMOTE_ATOMIC requires LOCAL_WRITE (ibv_reg_mr(3)); access was REMOTE_ATOMIC",
            assertThrows(IllegalArgumentException.class, () -> fx.pdA.registerMemory(direct,
                AccessFlags.REMOTE_ATOMIC)).getMessage());
        assertEquals("unknown access flag bits 0x400 (known: LOCAL_WRITE|REMOTE_WRITE|REMOTE_READ|REMOTE_ATOMIC|" +
            "MW_BIND|FLUSH_GLOBAL|FLUSH_PERSISTENT|REMOTE_INVALIDATE)",
            assertThrows(IllegalArgumentException.class, () -> fx.pdA.registerMemory(direct, 0x400)).getMessage());
        assertEquals("heap memory cannot be registered: use a direct ByteBuffer or an off-heap UnsafeBuffer, or " +
            "open the device with DeviceOptions.allowHeapMemory(true) and pass an explicit IOVA",
            assertThrows(IllegalArgumentException.class, () -> fx.pdA.registerMemory(ByteBuffer.allocate(64),
                AccessFlags.LOCAL_WRITE)).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> fx.pdA.registerMemory(
            new UnsafeBuffer(new byte[64]), AccessFlags.LOCAL_WRITE, 0x1000)).getMessage()
            .startsWith("heap memory cannot be registered"));
        assertEquals("a read-only ByteBuffer cannot be registered with write access (LOCAL_WRITE)",
            assertThrows(IllegalArgumentException.class, () -> fx.pdA.registerMemory(direct.asReadOnlyBuffer(),
                AccessFlags.LOCAL_WRITE)).getMessage());
        assertEquals("cannot register an empty region: the buffer has no bytes between position 64 and limit 64",
            assertThrows(IllegalArgumentException.class, () -> fx.pdA.registerMemory(direct.position(64), 0))
                .getMessage());
        direct.position(0);
        assertEquals("IOVA range 0xffffffffffffffc1 + 64 bytes wraps around the 64-bit address space",
            assertThrows(IllegalArgumentException.class, () -> fx.pdA.registerMemory(direct, 0, -63L)).getMessage());
        // A read-only buffer may still be registered for remote reads only.
        assertEquals(AccessFlags.REMOTE_READ, fx.pdA.registerMemory(direct.asReadOnlyBuffer(),
            AccessFlags.REMOTE_READ).access());
    }

    @Test
    void heapMemoryNeedsTheOptionAndAnExplicitIova()
    {
        try (RdmaDevice heapDevice = RdmaDevice.open(PairLink.pair(VerbsFixture.ADDRESS_A, VerbsFixture.ADDRESS_B,
            1500)[0], DeviceOptions.invoker().allowHeapMemory(true)))
        {
            final ProtectionDomain pd = heapDevice.allocPd();
            assertEquals("heap memory has no native address: pass an explicit IOVA",
                assertThrows(IllegalArgumentException.class, () -> pd.registerMemory(ByteBuffer.allocate(64),
                    AccessFlags.LOCAL_WRITE)).getMessage());
            final MemoryRegion mr = pd.registerMemory(ByteBuffer.allocate(64), AccessFlags.LOCAL_WRITE, 0x5000);
            assertEquals(0x5000, mr.iova());
            assertEquals(64, mr.length());
        }
    }

    @Test
    void deallocatingAProtectionDomainInUseNamesTheUsers()
    {
        final ProtectionDomain pd = fx.a.allocPd();
        final MemoryRegion mr1 = VerbsFixture.register(pd, 64, AccessFlags.LOCAL_WRITE);
        final MemoryRegion mr2 = VerbsFixture.register(pd, 64, AccessFlags.LOCAL_WRITE);
        final CompletionQueue cq = fx.a.createCq(8);
        final QueuePair qp = pd.createQp(VerbsFixture.init(QpType.RC, cq, cq));
        final AddressHandle ah = pd.createAh(new AhAttributes().dgid(fx.b.queryGid(1).high(),
            fx.b.queryGid(1).low()).sgidIndex(1));
        final SharedReceiveQueue srq = pd.createSrq(16, 1);

        final IllegalStateException ex = assertThrows(IllegalStateException.class, pd::dealloc);
        assertEquals("protection domain " + pd.handle() + " is still used by 2 memory regions, 1 queue pair, 1 " +
            "address handle, 1 shared receive queue; destroy them first (ibv_dealloc_pd fails with EBUSY)",
            ex.getMessage());
        assertEquals("CQ " + cq.handle() + " is still used by 1 queue pair; destroy them first (IBA C11-17)",
            assertThrows(IllegalStateException.class, cq::destroy).getMessage());

        mr1.deregister();
        mr2.deregister();
        qp.destroy();
        ah.destroy();
        srq.destroy();
        cq.destroy();
        pd.dealloc();
        assertTrue(pd.isDeallocated());
        assertEquals("protection domain " + pd.handle() + " was deallocated",
            assertThrows(IllegalStateException.class, () -> VerbsFixture.register(pd, 8, 0)).getMessage());
        assertThrows(IllegalStateException.class, qp::destroy);
        assertThrows(IllegalStateException.class, cq::destroy);
        assertThrows(IllegalStateException.class, () -> cq.poll(VerbsFixture.completions(1)));
    }

    @Test
    void srqInUseCannotBeDestroyed()
    {
        final CompletionQueue cq = fx.a.createCq(8);
        final SharedReceiveQueue srq = fx.pdA.createSrq(8, 1);
        final QueuePair qp = fx.pdA.createQp(VerbsFixture.init(QpType.RC, cq, cq).srq(srq));
        assertEquals("SRQ " + srq.handle() + " is still used by 1 queue pair; destroy them first",
            assertThrows(IllegalStateException.class, srq::destroy).getMessage());
        qp.destroy();
        srq.destroy();
        assertTrue(srq.isDestroyed());
    }

    @Test
    void createRefusesBadArguments()
    {
        final CompletionQueue cq = fx.a.createCq(8);
        assertEquals("cqe must be 1..32767, got 0",
            assertThrows(IllegalArgumentException.class, () -> fx.a.createCq(0)).getMessage());
        assertEquals("cap.max_send_wr must be 1..32768, got 0", assertThrows(IllegalArgumentException.class,
            () -> fx.pdA.createQp(VerbsFixture.init(QpType.RC, cq, cq).cap(0, 1, 1, 1, 0))).getMessage());
        assertEquals("cap.max_send_sge must be 0..32, got 33", assertThrows(IllegalArgumentException.class,
            () -> fx.pdA.createQp(VerbsFixture.init(QpType.RC, cq, cq).cap(1, 1, 33, 1, 0))).getMessage());
        assertEquals("cap.max_inline_data must be 0..512, got 513", assertThrows(IllegalArgumentException.class,
            () -> fx.pdA.createQp(VerbsFixture.init(QpType.RC, cq, cq).cap(1, 1, 1, 1, 513))).getMessage());
        assertEquals("send_cq must be set", assertThrows(IllegalArgumentException.class,
            () -> fx.pdA.createQp(VerbsFixture.init(QpType.RC, null, cq))).getMessage());
        final CompletionQueue other = fx.b.createCq(8);
        assertEquals("recv_cq belongs to another device (B)", assertThrows(IllegalArgumentException.class,
            () -> fx.pdA.createQp(VerbsFixture.init(QpType.RC, cq, other))).getMessage());
        final SharedReceiveQueue foreign = fx.a.allocPd().createSrq(4, 1);
        assertTrue(assertThrows(IllegalArgumentException.class,
            () -> fx.pdA.createQp(VerbsFixture.init(QpType.RC, cq, cq).srq(foreign))).getMessage()
            .endsWith(": they must share one PD"));
        assertEquals("srq max_sge must be 1..27, got 28",
            assertThrows(IllegalArgumentException.class, () -> fx.pdA.createSrq(4, 28)).getMessage());
        assertEquals("srq_limit must be 0..4, got 5",
            assertThrows(IllegalArgumentException.class, () -> foreign.modify(5)).getMessage());

        final AhAttributes v6ToV4 = new AhAttributes().dgid(fx.b.queryGid(1).high(), fx.b.queryGid(1).low())
            .sgidIndex(0);
        assertEquals("ah_attr: destination GID ::ffff:10.0.0.2 is IPv4-mapped but source GID index 0 " +
            "(fe80::ff:fe00:a) is IPv6: RoCEv2 needs both ends in one IP family (use sgid_index 1)",
            assertThrows(IllegalArgumentException.class, () -> fx.pdA.createAh(v6ToV4)).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> fx.pdA.createAh(new AhAttributes()
            .dgid(1, 2).sgidIndex(5))).getMessage().startsWith("ah_attr.grh.sgid_index 5 is not in the GID table"));
        final AddressHandle v6 = fx.pdA.createAh(new AhAttributes().dgid(fx.b.queryGid(0).high(),
            fx.b.queryGid(0).low()).sgidIndex(0));
        assertTrue(v6.isIpv6());
        assertEquals(fx.b.queryGid(0).low(), v6.query(new AhAttributes()).dgidLow());
    }

    @Test
    void closeIsIdempotentAndClosesTheLink()
    {
        final PairLink[] links = PairLink.pair(VerbsFixture.ADDRESS_A, VerbsFixture.ADDRESS_B, 1500);
        final RdmaDevice device = RdmaDevice.open(links[0]);
        assertEquals(AsyncEventType.PORT_ACTIVE, device.pollAsyncEvent().type());
        device.close();
        device.close();
        assertTrue(device.isClosed());
        assertTrue(links[0].isClosed());
        assertTrue(assertThrows(IllegalStateException.class, device::allocPd).getMessage().endsWith("is closed"));
        assertThrows(IllegalStateException.class, device::queryDevice);
    }

    @Test
    void asyncEventsAndCounters()
    {
        final AsyncEvent first = fx.a.getAsyncEvent(0);
        assertEquals(AsyncEventType.PORT_ACTIVE, first.type());
        assertEquals(1, first.element());
        final long before = fx.clock.nanoTime();
        assertNull(fx.a.getAsyncEvent(1_000_000), "nothing else happened");
        assertTrue(fx.clock.nanoTime() - before >= 1_000_000, "the wait ran out in simulated time");

        final VerbsFixture.Pair c = fx.connect(QpType.RC);
        final MemoryRegion src = VerbsFixture.register(fx.pdA, 64, VerbsFixture.ALL_ACCESS);
        final MemoryRegion dst = VerbsFixture.register(fx.pdB, 64, VerbsFixture.ALL_ACCESS);
        c.b.qp.postRecv(new RecvWorkRequest().addSge(dst, 0, 64));
        c.a.qp.postSend(new SendWorkRequest().opcode(org.roce4j.ib.WrOpcode.SEND)
            .sendFlags(SendFlags.SIGNALED).addSge(src, 0, 64));
        VerbsFixture.drain(c.a.sendCq, 1);

        final DeviceCounters counters = fx.a.counters();
        assertEquals(1, counters.get(TransportCounter.SEND_COMPLETIONS));
        assertEquals(counters.get(LinkCounter.FRAMES_SENT), fx.linkA.counters().get(LinkCounter.FRAMES_SENT));
        assertEquals(1, fx.b.counters().get(FrameStatus.OK));
        final String described = fx.a.describeCounters();
        assertTrue(described.contains("transport.send_completions 1\n"), described);
        assertTrue(described.contains("transport.acks_received 1\n"), described);
        assertTrue(described.contains("link.frames_sent 1\n"), described);
        assertFalse(described.contains(" 0\n"), "only non-zero counters: " + described);

        // forEach visits every counter, zeros too, under the names describe() gives.
        final Map<String, Long> all = new LinkedHashMap<>();
        counters.forEach(all::put);
        assertEquals(TransportCounter.values().length + FrameStatus.values().length + LinkCounter.values().length,
            all.size());
        assertEquals(1L, all.get("transport.send_completions"));
        assertEquals(0L, all.get("transport.ghost_responses"));
        assertEquals("transport.", all.keySet().iterator().next().substring(0, "transport.".length()));
        final StringBuilder nonZero = new StringBuilder();
        all.forEach((name, value) -> nonZero.append(0 == value ? "" : name + " " + value + "\n"));
        assertEquals(described, nonZero.toString());
    }
}
