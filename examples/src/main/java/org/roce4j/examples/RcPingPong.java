package org.roce4j.examples;

import java.nio.ByteBuffer;
import java.util.Locale;

import org.roce4j.cm.QpSetup;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.QpType;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WcOpcode;
import org.roce4j.ib.WcStatus;
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

/**
 * A minimal RC ping-pong: two devices in this JVM (ports of its in-memory fabric), one thread. A SENDs a ping, B
 * answers with a pong carrying the same sequence number and payload, N times; every byte of every message is checked.
 * Prints the round-trip time. The C original is ibv_rc_pingpong; {@code roce pingpong} speaks its wire exchange.
 *
 * <pre>
 * java -jar examples/target/examples.jar pingpong [iterations] [size]
 * </pre>
 */
public final class RcPingPong
{
    private static final long WAIT_NS = 5_000_000_000L;

    private RcPingPong()
    {
    }

    /**
     * @param args iterations (default 10000) and message size in bytes (default 64).
     * @throws Exception when a device cannot be opened or a check fails.
     */
    public static void main(final String[] args) throws Exception
    {
        final int iterations = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        final int size = args.length > 1 ? Integer.parseInt(args[1]) : 64;
        if (size < Long.BYTES)
        {
            throw new IllegalArgumentException("size must be at least 8 bytes (the sequence number), got " + size);
        }
        try (RdmaDevice a = RdmaDevice.open("memory:10.0.1.1");
            RdmaDevice b = RdmaDevice.open("memory:10.0.1.2"))
        {
            final Side ping = new Side(a, size);
            final Side pong = new Side(b, size);
            new QpSetup().connectPair(ping.qp, 0x1000, pong.qp, 0x2000);
            final WorkCompletion[] wc = new WorkCompletion[1];
            final long start = System.nanoTime();
            for (long seq = 0; seq < iterations; seq++)
            {
                pong.qp.postRecv(pong.recv);
                ping.qp.postRecv(ping.recv);
                ping.fill(seq);
                ping.qp.postSend(ping.send);
                pong.expect(wc, seq);
                pong.fill(seq);
                pong.qp.postSend(pong.send);
                ping.expect(wc, seq);
                ping.sent(wc, seq);
                pong.sent(wc, seq);
            }
            final double usPerRoundTrip = (System.nanoTime() - start) / 1000.0 / iterations;
            System.out.println(String.format(Locale.ROOT, "%d round trips of %d bytes, every byte checked: %.2f us " +
                "each", iterations, size, usPerRoundTrip));
        }
    }

    /** One end: a PD, a CQ, one RC QP, a send and a receive buffer, and the work requests reused every time. */
    private static final class Side
    {
        final RdmaDevice device;
        final CompletionQueue sendCq;
        final CompletionQueue recvCq;
        final QueuePair qp;
        final MemoryRegion outbox;
        final MemoryRegion inbox;
        final int size;
        final SendWorkRequest send;
        final RecvWorkRequest recv;

        Side(final RdmaDevice device, final int size)
        {
            this.device = device;
            this.size = size;
            final ProtectionDomain pd = device.allocPd();
            sendCq = device.createCq(16);
            recvCq = device.createCq(16);
            qp = pd.createQp(new QpInitAttributes().qpType(QpType.RC).sendCq(sendCq).recvCq(recvCq));
            outbox = pd.registerMemory(ByteBuffer.allocateDirect(size), AccessFlags.LOCAL_WRITE);
            inbox = pd.registerMemory(ByteBuffer.allocateDirect(size), AccessFlags.LOCAL_WRITE);
            send = new SendWorkRequest().opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED).addSge(outbox, 0, size);
            recv = new RecvWorkRequest().addSge(inbox, 0, size);
        }

        /** The message of sequence number seq: the number, then bytes that depend on it and their offset. */
        void fill(final long seq)
        {
            outbox.buffer().putLong(0, seq);
            for (int i = Long.BYTES; i < size; i++)
            {
                outbox.buffer().putByte(i, pattern(seq, i));
            }
        }

        /** The send completion of message seq: the peer acknowledged it, the outbox may be refilled. */
        void sent(final WorkCompletion[] wc, final long seq)
        {
            if (1 != sendCq.pollBlocking(wc, WAIT_NS) || WcStatus.SUCCESS != wc[0].status() ||
                WcOpcode.SEND != wc[0].opcode())
            {
                throw new IllegalStateException("send " + seq + " at " + device.name() + " did not complete: " +
                    wc[0] + "\n" + device.describeCounters());
            }
        }

        void expect(final WorkCompletion[] wc, final long seq)
        {
            if (1 != recvCq.pollBlocking(wc, WAIT_NS))
            {
                throw new IllegalStateException("no message " + seq + " at " + device.name() + ":\n" +
                    device.describeCounters());
            }
            if (WcStatus.SUCCESS != wc[0].status() || WcOpcode.RECV != wc[0].opcode() || size != wc[0].byteLen())
            {
                throw new IllegalStateException("message " + seq + ": " + wc[0]);
            }
            if (seq != inbox.buffer().getLong(0))
            {
                throw new IllegalStateException("expected message " + seq + ", got " + inbox.buffer().getLong(0));
            }
            for (int i = Long.BYTES; i < size; i++)
            {
                if (pattern(seq, i) != inbox.buffer().getByte(i))
                {
                    throw new IllegalStateException("message " + seq + ": byte " + i + " is wrong");
                }
            }
        }

        private static byte pattern(final long seq, final int offset)
        {
            return (byte)(seq * 31 + offset * 7);
        }
    }
}
