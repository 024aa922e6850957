package org.roce4j.transport.link.memory;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.Test;
import org.roce4j.transport.link.FrameHandler;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.transport.link.TestFrames;
import org.roce4j.transport.link.fault.FaultRule;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrameParser;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Two ports driven by two threads, each sending to the other and to itself (so each inbound ring has two
 * producers), with some frames delayed on the system clock: nothing is lost, duplicated or reordered per sender.
 */
class TwoThreadFabricTest
{
    private static final int FRAMES_PER_DESTINATION = 50_000;
    /** Frames on this QP are delayed by a rule, so the due time crosses threads. */
    private static final int DELAYED_QPN = 0x99;
    private static final int PLAIN_QPN = 0x11;
    private static final long DELAY_NS = 20_000;
    /** Upper bound on the run, so a bug shows as a failure rather than a hung build; not a speed assertion. */
    private static final long GIVE_UP_NS = TimeUnit.SECONDS.toNanos(120);

    @Test
    void twoThreadsExchangeFramesWithoutLossOrReordering() throws InterruptedException
    {
        // 16 MiB rings hold every frame either side sends, so nothing can be dropped even if a thread stalls.
        try (MemoryFabric fabric = MemoryFabric.builder().clock(SystemNanoClock.INSTANCE)
            .ringCapacityBytes(16 * 1024 * 1024).delaySlots(4096).build())
        {
            final MemoryLink a = fabric.attach(TestFrames.address(1), 1500);
            final MemoryLink b = fabric.attach(TestFrames.address(2), 1500);
            final AtomicBoolean stop = new AtomicBoolean();
            final Endpoint left = new Endpoint(a, b.address(), stop);
            final Endpoint right = new Endpoint(b, a.address(), stop);
            final Thread leftThread = new Thread(left::run, "fabric-left");
            final Thread rightThread = new Thread(right::run, "fabric-right");
            leftThread.start();
            rightThread.start();
            leftThread.join(TimeUnit.NANOSECONDS.toMillis(GIVE_UP_NS) + 10_000);
            rightThread.join(TimeUnit.NANOSECONDS.toMillis(GIVE_UP_NS) + 10_000);

            assertFalse(leftThread.isAlive() || rightThread.isAlive(), "threads finished");
            assertNull(left.failure.get(), "left thread");
            assertNull(right.failure.get(), "right thread");
            for (final MemoryLink port : new MemoryLink[]{a, b})
            {
                assertEquals(0, port.fabricCounters().total(), port.name() + " " + port.fabricCounters());
                assertEquals(2L * FRAMES_PER_DESTINATION, port.counters().get(LinkCounter.FRAMES_SENT));
                assertEquals(2L * FRAMES_PER_DESTINATION, port.counters().get(LinkCounter.FRAMES_RECEIVED));
                assertEquals(2L * FRAMES_PER_DESTINATION / 10, port.counters().get(LinkCounter.INJECTED_DELAYS));
            }
        }
    }

    /**
     * Drives one port: alternately sends to the peer and to itself, and polls, checking order per (sender, QP).
     */
    private static final class Endpoint
    {
        private final MemoryLink link;
        private final LinkAddress peer;
        private final TestFrames frames = new TestFrames();
        private final RoceFrameParser parser = new RoceFrameParser();
        private final AtomicReference<Throwable> failure = new AtomicReference<>();
        private final AtomicBoolean stop;
        /** Next PSN expected, indexed by [sender is self ? 1 : 0][delayed QP ? 1 : 0]. */
        private final int[][] nextPsn = {{1, 0}, {1, 0}};
        private final FrameHandler handler = this::onFrame;
        private int received;

        Endpoint(final MemoryLink link, final LinkAddress peer, final AtomicBoolean stop)
        {
            this.link = link;
            this.peer = peer;
            this.stop = stop;
            link.faults().addRule(FaultRule.delay(DELAY_NS).destQp(DELAYED_QPN));
        }

        void run()
        {
            try
            {
                final long deadlineNs = System.nanoTime() + GIVE_UP_NS;
                final int[] sent = new int[2];
                while (received < 2 * FRAMES_PER_DESTINATION && System.nanoTime() - deadlineNs < 0 && !stop.get())
                {
                    for (int toSelf = 0; toSelf < 2; toSelf++)
                    {
                        if (sent[toSelf] < FRAMES_PER_DESTINATION)
                        {
                            final int seq = sent[toSelf]++;
                            final int qpn = 0 == seq % 10 ? DELAYED_QPN : PLAIN_QPN;
                            frames.send(link, 1 == toSelf ? link.address() : peer, Opcode.RC_SEND_ONLY, qpn, seq, 64);
                        }
                    }
                    link.poll(handler, 32);
                }
                if (received != 2 * FRAMES_PER_DESTINATION)
                {
                    throw new AssertionError(link.name() + " gave up after " + received + " frames");
                }
            }
            catch (final Throwable ex)
            {
                failure.set(ex);
                stop.set(true);
            }
        }

        private void onFrame(final org.agrona.MutableDirectBuffer buffer, final int offset, final int length)
        {
            if (FrameStatus.OK != parser.parse(buffer, offset, length))
            {
                throw new AssertionError("bad frame: " + parser.status());
            }
            final int fromSelf = parser.ipv4().source() == link.address().ipv4() ? 1 : 0;
            final int delayed = DELAYED_QPN == parser.bth().destQp() ? 1 : 0;
            final int psn = parser.bth().psn();
            final int expected = nextPsn[fromSelf][delayed];
            if (psn != expected)
            {
                throw new AssertionError(link.name() + " expected PSN " + expected + " from " +
                    (1 == fromSelf ? "itself" : "its peer") + " on QP " + parser.bth().destQp() + " but got " + psn);
            }
            // The PSN is the sender's sequence number: the delayed QP carries 0, 10, 20, ...; the plain QP the rest.
            nextPsn[fromSelf][delayed] = 1 == delayed ? psn + 10 : (psn + 1) % 10 == 0 ? psn + 2 : psn + 1;
            received++;
        }
    }
}
