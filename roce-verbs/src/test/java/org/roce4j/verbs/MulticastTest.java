package org.roce4j.verbs;

import java.util.ArrayList;
import java.util.List;

import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.roce4j.ib.AhAttributes;
import org.roce4j.ib.QpType;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.transport.TransportCounter;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.link.memory.MemoryFabric;
import org.roce4j.transport.link.memory.MemoryLink;
import org.roce4j.transport.provider.EngineConfig;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.addr.Mac;
import org.roce4j.wire.header.BthHeader;
import org.roce4j.wire.header.Ipv4Header;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * UD multicast over the in-memory fabric (ibv_attach_mcast / ibv_detach_mcast, rxe_mcast.c and
 * rxe_rcv_mcast_pkt): one sender, two receivers on two devices attached to the group, one device with a QP that is
 * not; IPv4 and IPv6 groups; detaching stops delivery; the verbs' error cases; the Q_Key checked per QP.
 */
class MulticastTest
{
    private static final Gid GROUP_V4 = Gid.parse("::ffff:239.1.2.3");
    private static final Gid GROUP_V6 = Gid.parse("ff0e::1:2:3");
    private static final int QKEY = 0x0123_4567;
    private static final int MESSAGE_BYTES = 64;

    private final CachedNanoClock clock = new CachedNanoClock();
    private final ProgressGroup group = ProgressGroup.simulated(clock);
    private final List<RdmaDevice> devices = new ArrayList<>();
    private MemoryFabric fabric;
    private Node sender;
    private Node receiverB;
    private Node receiverC;
    private Node bystander;

    /** One device with one UD QP in RTS, a CQ and a registered buffer. */
    private final class Node
    {
        final RdmaDevice device;
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final QueuePair qp;
        final MemoryRegion memory;

        Node(final String ip, final int qkey)
        {
            final MemoryLink link = fabric.attach(LinkAddress.ofIpv4(ip), 1500);
            device = RdmaDevice.open(link, DeviceOptions.invoker().progressGroup(group)
                .engineConfig(new EngineConfig().clock(clock)).name(ip));
            devices.add(device);
            pd = device.allocPd();
            cq = device.createCq(64);
            qp = pd.createQp(VerbsFixture.init(QpType.UD, cq, cq).cap(16, 16, 1, 1, 0));
            final VerbsFixture.Params params = new VerbsFixture.Params();
            params.qkey = qkey;
            VerbsFixture.bringUp(qp, 0, null, 0, 0, params);
            memory = VerbsFixture.register(pd, 4096, VerbsFixture.ALL_ACCESS);
        }

        void postRecv(final int count)
        {
            for (int i = 0; i < count; i++)
            {
                qp.postRecv(new RecvWorkRequest().wrId(i).addSge(memory, 1024, MESSAGE_BYTES + 40));
            }
        }

        void send(final Gid groupGid, final int qkey, final int tag)
        {
            final int sgid = device.sourceGidIndex(groupGid);
            final AddressHandle ah = pd.createAh(new AhAttributes().dgid(groupGid.high(), groupGid.low())
                .sgidIndex(sgid));
            memory.buffer().putInt(0, tag);
            qp.postSend(new SendWorkRequest().wrId(tag).sendFlags(SendFlags.SIGNALED).addSge(memory, 0, MESSAGE_BYTES)
                .ud(ah, BthHeader.MULTICAST_QPN, qkey));
            final WorkCompletion sent = VerbsFixture.drain(cq, 1).get(0);
            assertEquals(WcStatus.SUCCESS, sent.status(), sent.toString());
        }

        /** The tag of the message received, after checking the completion. */
        int received()
        {
            final WorkCompletion wc = VerbsFixture.drain(cq, 1).get(0);
            assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
            assertEquals(MESSAGE_BYTES + 40, wc.byteLen(), "payload plus the GRH area");
            assertEquals(sender.qp.qpNum(), wc.srcQp());
            assertTrue(wc.hasGrh());
            return memory.buffer().getInt(1024 + 40);
        }

        long counter(final TransportCounter counter)
        {
            return device.counters().get(counter);
        }
    }

    @BeforeEach
    void open()
    {
        clock.update(1_000_000_000L);
        fabric = new MemoryFabric(clock);
        sender = new Node("10.0.0.1", QKEY);
        receiverB = new Node("10.0.0.2", QKEY);
        receiverC = new Node("10.0.0.3", QKEY);
        bystander = new Node("10.0.0.4", QKEY);
    }

    @AfterEach
    void close()
    {
        for (final RdmaDevice device : devices)
        {
            device.close();
        }
        fabric.close();
    }

    @Test
    void anIpv4GroupReachesEveryAttachedQpAndNoOther()
    {
        deliversToAttachedQps(GROUP_V4);
    }

    @Test
    void anIpv6GroupReachesEveryAttachedQpAndNoOther()
    {
        deliversToAttachedQps(GROUP_V6);
    }

    private void deliversToAttachedQps(final Gid groupGid)
    {
        receiverB.qp.attachMcast(groupGid);
        receiverC.qp.attachMcast(groupGid);
        receiverB.postRecv(2);
        receiverC.postRecv(2);
        bystander.postRecv(2);

        sender.send(groupGid, QKEY, 0x1234);
        assertEquals(0x1234, receiverB.received());
        assertEquals(0x1234, receiverC.received());
        settle();
        assertEquals(0, bystander.cq.poll(VerbsFixture.completions(1)), "the bystander's QP did not attach");
        assertEquals(1, bystander.counter(TransportCounter.DROP_NO_MCAST_GROUP), "counted where it was dropped");
        assertEquals(1, sender.counter(TransportCounter.MULTICAST_XMIT_PACKETS));
        assertEquals(1, receiverB.counter(TransportCounter.MULTICAST_RCV_PACKETS));
        assertEquals(1, receiverC.counter(TransportCounter.MULTICAST_RCV_PACKETS));

        receiverC.qp.detachMcast(groupGid);
        sender.send(groupGid, QKEY, 0x5678);
        assertEquals(0x5678, receiverB.received());
        settle();
        assertEquals(0, receiverC.cq.poll(VerbsFixture.completions(1)), "detached: nothing more arrives");
        assertEquals(1, receiverC.counter(TransportCounter.DROP_NO_MCAST_GROUP));
        for (final RdmaDevice device : devices)
        {
            assertEquals(0, device.counters().get(TransportCounter.INTERNAL_ERRORS), device.describeCounters());
        }
    }

    @Test
    void theQkeyIsCheckedPerQp()
    {
        final Node otherKey = new Node("10.0.0.5", 0x7777_7777);
        receiverB.qp.attachMcast(GROUP_V4);
        otherKey.qp.attachMcast(GROUP_V4);
        receiverB.postRecv(1);
        otherKey.postRecv(1);

        sender.send(GROUP_V4, QKEY, 42);
        assertEquals(42, receiverB.received());
        settle();
        assertEquals(0, otherKey.cq.poll(VerbsFixture.completions(1)), "its Q_Key differs");
        assertEquals(1, otherKey.counter(TransportCounter.DROP_BAD_QKEY));
        assertEquals(1, otherKey.counter(TransportCounter.MULTICAST_RCV_PACKETS), "the group was known");
    }

    @Test
    void twoQpsOfOneDeviceEachTakeACopy()
    {
        final QueuePair second = receiverB.pd.createQp(
            VerbsFixture.init(QpType.UD, receiverB.cq, receiverB.cq).cap(16, 16, 1, 1, 0));
        final VerbsFixture.Params params = new VerbsFixture.Params();
        params.qkey = QKEY;
        VerbsFixture.bringUp(second, 0, null, 0, 0, params);
        receiverB.qp.attachMcast(GROUP_V6);
        second.attachMcast(GROUP_V6);
        receiverB.postRecv(1);
        second.postRecv(new RecvWorkRequest().wrId(99).addSge(receiverB.memory, 2048, MESSAGE_BYTES + 40));

        sender.send(GROUP_V6, QKEY, 7);
        final List<WorkCompletion> both = VerbsFixture.drain(receiverB.cq, 2);
        assertEquals(2, both.size());
        assertEquals(2, receiverB.counter(TransportCounter.PACKETS_RECEIVED), "one copy per attached QP");
        assertEquals(1, receiverB.counter(TransportCounter.MULTICAST_RCV_PACKETS), "one packet");
        assertEquals(7, receiverB.memory.buffer().getInt(1024 + 40));
        assertEquals(7, receiverB.memory.buffer().getInt(2048 + 40));
        receiverB.qp.detachMcast(GROUP_V6);
        second.detachMcast(GROUP_V6);
        second.destroy();
    }

    @Test
    void attachingTwiceChangesNothingAsInRxe()
    {
        receiverB.qp.attachMcast(GROUP_V4);
        receiverB.qp.attachMcast(GROUP_V4);
        receiverB.postRecv(2);
        sender.send(GROUP_V4, QKEY, 1);
        assertEquals(1, receiverB.received());
        settle();
        assertEquals(0, receiverB.cq.poll(VerbsFixture.completions(1)), "one copy, not two");
        receiverB.qp.detachMcast(GROUP_V4);
        final IllegalArgumentException again =
            assertThrows(IllegalArgumentException.class, () -> receiverB.qp.detachMcast(GROUP_V4));
        assertTrue(again.getMessage().contains("is not attached"), again.getMessage());
    }

    @Test
    void theVerbsRefuseWhatRxeRefuses()
    {
        final IllegalArgumentException unicast =
            assertThrows(IllegalArgumentException.class, () -> receiverB.qp.attachMcast(Gid.parse("::ffff:10.0.0.9")));
        assertTrue(unicast.getMessage().contains("is not a multicast GID"), unicast.getMessage());
        assertThrows(IllegalArgumentException.class, () -> receiverB.qp.attachMcast(Gid.parse("fe80::1")));

        final IllegalArgumentException unknown =
            assertThrows(IllegalArgumentException.class, () -> receiverB.qp.detachMcast(GROUP_V6));
        assertTrue(unknown.getMessage().contains("is not attached"), unknown.getMessage());

        final CompletionQueue cq = receiverB.cq;
        final QueuePair rc = receiverB.pd.createQp(VerbsFixture.init(QpType.RC, cq, cq).cap(1, 1, 1, 1, 0));
        final IllegalArgumentException notUd =
            assertThrows(IllegalArgumentException.class, () -> rc.attachMcast(GROUP_V4));
        assertTrue(notUd.getMessage().contains("needs a UD QP"), notUd.getMessage());
        assertThrows(NullPointerException.class, () -> receiverB.qp.attachMcast(null));

        receiverB.qp.attachMcast(GROUP_V4);
        final IllegalStateException busy = assertThrows(IllegalStateException.class, () -> receiverB.qp.destroy());
        assertTrue(busy.getMessage().contains("still attached"), busy.getMessage());
        receiverB.qp.detachMcast(GROUP_V4);
        receiverB.qp.destroy();
        assertThrows(IllegalStateException.class, () -> receiverB.qp.attachMcast(GROUP_V4), "destroyed");
    }

    @Test
    void multicastFramesCarryTheGroupMacAndIp()
    {
        final List<long[]> seen = new ArrayList<>();
        final MemoryLink port = fabric.port(Ipv4Header.parseAddress("10.0.0.2"));
        port.tapFrames((outgoing, dropped, buffer, offset, length) ->
        {
            if (!outgoing)
            {
                final long mac = buffer.getLong(offset, java.nio.ByteOrder.BIG_ENDIAN) >>> 16;
                final int destinationIp = buffer.getInt(offset + 14 + 16, java.nio.ByteOrder.BIG_ENDIAN);
                final int destQp = buffer.getInt(offset + 14 + 20 + 8 + 4, java.nio.ByteOrder.BIG_ENDIAN) & 0xFF_FFFF;
                seen.add(new long[] {mac, destinationIp, destQp});
            }
        });
        receiverB.qp.attachMcast(GROUP_V4);
        receiverB.postRecv(1);
        sender.send(GROUP_V4, QKEY, 3);
        assertEquals(3, receiverB.received());
        assertEquals(1, seen.size());
        assertEquals(Mac.parse("01:00:5e:01:02:03"), seen.get(0)[0], "RFC 1112 group MAC");
        assertEquals(Ipv4Header.parseAddress("239.1.2.3"), (int)seen.get(0)[1]);
        assertEquals(BthHeader.MULTICAST_QPN, (int)seen.get(0)[2]);
    }

    private void settle()
    {
        for (int i = 0; i < 10_000; i++)
        {
            if (0 == group.progress())
            {
                if (Long.MAX_VALUE == group.earliestDeadlineNs())
                {
                    return;
                }
                clock.update(Math.max(clock.nanoTime() + 1, group.earliestDeadlineNs()));
            }
        }
        throw new AssertionError("engines did not settle");
    }
}
