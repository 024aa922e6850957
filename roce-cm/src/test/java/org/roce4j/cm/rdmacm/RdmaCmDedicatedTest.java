package org.roce4j.cm.rdmacm;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.roce4j.ib.QpState;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.ib.WrOpcode;
import org.roce4j.transport.TransportCounter;
import org.roce4j.transport.link.memory.MemoryFabric;
import org.roce4j.verbs.CompletionQueue;
import org.roce4j.verbs.DeviceOptions;
import org.roce4j.verbs.MemoryRegion;
import org.roce4j.verbs.ProtectionDomain;
import org.roce4j.verbs.RdmaDevice;
import org.roce4j.verbs.RecvWorkRequest;
import org.roce4j.verbs.SendWorkRequest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.roce4j.cm.rdmacm.CmFabric.ADDRESS_A;
import static org.roce4j.cm.rdmacm.CmFabric.ADDRESS_B;

/**
 * rdma_cm on DEDICATED devices (real threads: an engine agent and a CM agent per device, API calls from the test
 * thread handed to the CM thread): connect, exchange a SEND, disconnect. The waits are bounds for a hang, not
 * timings.
 */
class RdmaCmDedicatedTest
{
    private static final long WAIT_NS = TimeUnit.SECONDS.toNanos(20);

    @Test
    void connectSendAndDisconnectAcrossThreads()
    {
        try (MemoryFabric fabric = new MemoryFabric();
            RdmaDevice a = RdmaDevice.open(fabric.attach(ADDRESS_A, 1500), DeviceOptions.dedicated().backoff());
            RdmaDevice b = RdmaDevice.open(fabric.attach(ADDRESS_B, 1500), DeviceOptions.dedicated().backoff());
            RdmaCm cmA = RdmaCm.open(a);
            RdmaCm cmB = RdmaCm.open(b))
        {
            assertNotNull(cmA.thread());
            assertNotSame(Thread.currentThread(), cmA.thread());
            final ProtectionDomain pdA = a.allocPd();
            final ProtectionDomain pdB = b.allocPd();
            final CompletionQueue cqA = a.createCq(64);
            final CompletionQueue cqB = b.createCq(64);
            final RdmaCmId listener = cmB.createId().listen(new InetSocketAddress("0.0.0.0", 20000), 4);

            final RdmaCmId active = cmA.createId();
            active.createQp(pdA, CmFabric.init(cqA));
            active.connect(CmFabric.address(ADDRESS_B, 20000), new ConnParam());
            final RdmaCmEvent request = cmB.expect(listener, RdmaCmEventType.CONNECT_REQUEST, WAIT_NS);
            final RdmaCmId passive = request.id();
            passive.createQp(pdB, CmFabric.init(cqB));
            final MemoryRegion bufB = CmFabric.register(pdB, 64);
            passive.qp().postRecv(new RecvWorkRequest().wrId(1).addSge(bufB, 0, 64));
            passive.accept(null);
            cmA.expect(active, RdmaCmEventType.ESTABLISHED, WAIT_NS);
            cmB.expect(passive, RdmaCmEventType.ESTABLISHED, WAIT_NS);

            final MemoryRegion bufA = CmFabric.register(pdA, 64);
            bufA.buffer().putStringWithoutLengthAscii(0, "threads");
            active.qp().postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .addSge(bufA, 0, 7));
            final WorkCompletion[] out = {new WorkCompletion()};
            assertEquals(1, cqB.pollBlocking(out, WAIT_NS));
            assertEquals(WcStatus.SUCCESS, out[0].status());
            assertEquals("threads", bufB.buffer().getStringWithoutLengthAscii(0, 7));

            passive.disconnect();
            cmA.expect(active, RdmaCmEventType.DISCONNECTED, WAIT_NS);
            cmB.expect(passive, RdmaCmEventType.DISCONNECTED, WAIT_NS);
            assertEquals(QpState.ERR, active.qp().state());
            assertEquals(0, cmA.errors());
            assertEquals(0, cmB.errors());
            assertEquals(0, a.counters().get(TransportCounter.INTERNAL_ERRORS));
        }
    }
}
