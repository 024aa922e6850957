package org.roce4j.cm.rdmacm;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.util.Random;

import org.agrona.concurrent.CachedNanoClock;
import org.roce4j.cm.ib.CmIdSource;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.transport.TransportCounter;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.link.memory.MemoryFabric;
import org.roce4j.transport.link.memory.MemoryLink;
import org.roce4j.transport.provider.EngineConfig;
import org.roce4j.verbs.CompletionQueue;
import org.roce4j.verbs.DeviceOptions;
import org.roce4j.verbs.MemoryRegion;
import org.roce4j.verbs.ProgressGroup;
import org.roce4j.verbs.ProtectionDomain;
import org.roce4j.verbs.QpInitAttributes;
import org.roce4j.verbs.RdmaDevice;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.addr.Mac;
import org.roce4j.wire.header.Ipv4Header;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Two roce4j devices, each with its rdma_cm, on the in-memory fabric, in one INVOKER progress group on a simulated
 * clock: every wait drives both engines and both CMs, and when all are idle the clock jumps to the next timer, so
 * connection tests (timeouts included) are deterministic and take no real time.
 */
final class CmFabric implements AutoCloseable
{
    static final LinkAddress ADDRESS_A = new LinkAddress(Mac.parse("02:00:00:00:00:0a"),
        Ipv4Header.parseAddress("10.0.0.1"));
    static final LinkAddress ADDRESS_B = new LinkAddress(Mac.parse("02:00:00:00:00:0b"),
        Ipv4Header.parseAddress("10.0.0.2"));
    /** Simulated time a wait may take: longer than a whole REQ retry cycle (98 s). */
    static final long WAIT_NS = 200_000_000_000L;

    final CachedNanoClock clock = new CachedNanoClock();
    final MemoryFabric fabric;
    final MemoryLink linkA;
    final MemoryLink linkB;
    final ProgressGroup group = ProgressGroup.simulated(clock);
    final RdmaDevice a;
    final RdmaDevice b;
    final RdmaCm cmA;
    final RdmaCm cmB;
    final ProtectionDomain pdA;
    final ProtectionDomain pdB;
    final CompletionQueue cqA;
    final CompletionQueue cqB;

    CmFabric()
    {
        this(true);
    }

    CmFabric(final boolean cmOnB)
    {
        this(ADDRESS_A, ADDRESS_B, cmOnB);
    }

    CmFabric(final LinkAddress addressA, final LinkAddress addressB, final boolean cmOnB)
    {
        clock.update(1_000_000_000L);
        fabric = MemoryFabric.builder().clock(clock).build();
        linkA = fabric.attach(addressA, 1500);
        linkB = fabric.attach(addressB, 1500);
        a = RdmaDevice.open(linkA, DeviceOptions.invoker().progressGroup(group)
            .engineConfig(new EngineConfig().clock(clock)).name("A"));
        b = RdmaDevice.open(linkB, DeviceOptions.invoker().progressGroup(group)
            .engineConfig(new EngineConfig().clock(clock)).name("B"));
        cmA = RdmaCm.open(a, new RdmaCmOptions().ids(CmIdSource.of(new Random(11))));
        cmB = cmOnB ? RdmaCm.open(b, new RdmaCmOptions().ids(CmIdSource.of(new Random(12)))) : null;
        pdA = a.allocPd();
        pdB = b.allocPd();
        cqA = a.createCq(256);
        cqB = b.createCq(256);
    }

    static QpInitAttributes init(final CompletionQueue cq)
    {
        return new QpInitAttributes().cq(cq).cap(32, 32, 1, 1, 64);
    }

    static InetSocketAddress address(final LinkAddress link, final int port)
    {
        try
        {
            return new InetSocketAddress(InetAddress.getByAddress(ByteBuffer.allocate(4).putInt(link.ipv4()).array()),
                port);
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    static InetSocketAddress linkLocal(final LinkAddress link, final int port)
    {
        try
        {
            return new InetSocketAddress(InetAddress.getByAddress(ByteBuffer.allocate(16)
                .putLong(Gid.LINK_LOCAL_HIGH).putLong(link.linkLocalLow()).array()), port);
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    static MemoryRegion register(final ProtectionDomain pd, final int size)
    {
        return pd.registerMemory(ByteBuffer.allocateDirect(size),
            AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ);
    }

    static WorkCompletion awaitCompletion(final CompletionQueue cq)
    {
        final WorkCompletion[] out = {new WorkCompletion()};
        if (0 == cq.pollBlocking(out, WAIT_NS))
        {
            throw new AssertionError("no completion on " + cq);
        }
        return new WorkCompletion().set(out[0].wrId(), out[0].status(), out[0].opcode(), out[0].byteLen(),
            out[0].immData(), out[0].qpNum(), out[0].srcQp(), out[0].wcFlags(), out[0].invalidatedRkey());
    }

    void assertHealthy()
    {
        assertEquals(0, a.counters().get(TransportCounter.INTERNAL_ERRORS), a.describeCounters());
        assertEquals(0, b.counters().get(TransportCounter.INTERNAL_ERRORS), b.describeCounters());
        assertEquals(0, cmA.errors(), String.valueOf(cmA.lastError()));
        assertEquals(0, null == cmB ? 0 : cmB.errors(), null == cmB ? "" : String.valueOf(cmB.lastError()));
    }

    public void close()
    {
        cmA.close();
        if (null != cmB)
        {
            cmB.close();
        }
        a.close();
        b.close();
        fabric.close();
    }
}
