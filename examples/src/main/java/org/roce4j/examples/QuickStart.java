package org.roce4j.examples;

// README:start
import java.nio.ByteBuffer;

import org.roce4j.cm.QpSetup;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.QpType;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.ib.WrOpcode;
import org.roce4j.verbs.CompletionQueue;
import org.roce4j.verbs.MemoryRegion;
import org.roce4j.verbs.ProtectionDomain;
import org.roce4j.verbs.QpInitAttributes;
import org.roce4j.verbs.QueuePair;
import org.roce4j.verbs.RdmaDevice;
import org.roce4j.verbs.RecvWorkRequest;
import org.roce4j.verbs.SendWorkRequest;

/** Two devices, a memory region each, an RC connection, one RDMA WRITE with immediate, one completion. */
public final class QuickStart
{
    /** @param args none. @throws Exception when a device cannot be opened. */
    public static void main(final String[] args) throws Exception
    {
        try (RdmaDevice a = RdmaDevice.open("memory:10.0.0.1");   // two devices on this JVM's in-memory fabric;
            RdmaDevice b = RdmaDevice.open("memory:10.0.0.2"))    // "udp:IP" opens one on a real network
        {
            final ProtectionDomain pdA = a.allocPd();
            final ProtectionDomain pdB = b.allocPd();
            final CompletionQueue cqA = a.createCq(16);
            final CompletionQueue cqB = b.createCq(16);
            final MemoryRegion src = pdA.registerMemory(ByteBuffer.allocateDirect(4096), AccessFlags.LOCAL_WRITE);
            final MemoryRegion dst = pdB.registerMemory(ByteBuffer.allocateDirect(4096),
                AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
            final QueuePair qpA = pdA.createQp(new QpInitAttributes().qpType(QpType.RC).cq(cqA));
            final QueuePair qpB = pdB.createQp(new QpInitAttributes().qpType(QpType.RC).cq(cqB));
            new QpSetup().connectPair(qpA, 0x100, qpB, 0x200);     // RESET -> INIT -> RTR -> RTS, both ways

            qpB.postRecv(new RecvWorkRequest().wrId(1));             // a WRITE with immediate consumes a receive
            src.buffer().putStringAscii(0, "hello, RDMA");
            qpA.postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).immData(42)
                .sendFlags(SendFlags.SIGNALED).addSge(src, 0, 64).rdma(dst.address(0), dst.rkey()));

            final WorkCompletion[] wc = new WorkCompletion[1];
            if (1 != cqB.pollBlocking(wc, 5_000_000_000L))          // this thread drives both devices' engines
            {
                throw new IllegalStateException("no completion: " + b.describeCounters());
            }
            System.out.println(wc[0].opcode() + " imm=" + wc[0].immData() + ": " + dst.buffer().getStringAscii(0));
        }
    }
}
// README:end
