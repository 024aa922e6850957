package org.roce4j.transport.link.sim;

import java.util.ArrayList;
import java.util.List;

import org.agrona.concurrent.CachedNanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrameBuilder;
import org.roce4j.wire.RoceFrameParser;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The simulated switch's timing, queueing, tail drop and RED/ECN marking, frame by frame on a clock the test moves.
 * At 10 Gb/s a 1250-byte frame takes exactly 1 µs on the wire (1250 * 8 / 10e9 s); links have 1 µs of propagation
 * delay, so a frame sent at t = 0 reaches the switch at 2 µs (last bit out of the NIC at 1 µs, plus 1 µs) and the
 * receiving host at 4 µs (switch serialization 2..3 µs, plus 1 µs).
 */
class SimSwitchTest
{
    private static final long US = 1_000;
    private static final int FRAME = 1250;
    private static final LinkAddress A = LinkAddress.of("02:00:00:00:00:0a", "10.0.0.1");
    private static final LinkAddress B = LinkAddress.of("02:00:00:00:00:0b", "10.0.0.2");
    private static final LinkAddress C = LinkAddress.of("02:00:00:00:00:0c", "10.0.0.3");

    private final CachedNanoClock clock = new CachedNanoClock();

    private SimSwitch.Builder builder()
    {
        // The tests post bursts of frames at one instant: a NIC queue deep enough for them.
        return SimSwitch.builder().clock(clock).lineRateBps(10_000_000_000L).propagationDelayNs(US)
            .hostQueueFrames(64);
    }

    /** A RoCE SEND_ONLY frame of exactly {@link #FRAME} bytes with the given TOS. */
    private static void send(final SwitchPort from, final LinkAddress to, final int tos)
    {
        final int index = from.tryClaim(FRAME);
        assertTrue(index >= 0, "host queue full");
        final RoceFrameBuilder b = new RoceFrameBuilder().wrap(from.sendBuffer(), index).ethernet(0,
            from.address().mac())
            .ipv4(from.address().ipv4(), to.ipv4(), tos, 64).udp(0xC000).bth(Opcode.RC_SEND_ONLY, 0x11, 1);
        // 14 Ethernet + 20 IP + 8 UDP + 12 BTH + payload + 4 ICRC = 1250.
        b.payloadLength(FRAME - 58);
        assertEquals(FRAME, b.finish());
        from.commit(index, FRAME);
    }

    private static List<RoceFrameParser> poll(final SwitchPort port)
    {
        final List<RoceFrameParser> got = new ArrayList<>();
        port.poll((buffer, offset, length) ->
        {
            final byte[] copy = new byte[length];
            buffer.getBytes(offset, copy);
            final RoceFrameParser parser = new RoceFrameParser();
            assertEquals(FrameStatus.OK, parser.parse(new UnsafeBuffer(copy), 0, length, true),
                "ICRC and IP checksum still valid");
            assertTrue(parser.ipv4().isChecksumValid());
            got.add(parser);
        }, 100);
        return got;
    }

    @Test
    void aFrameTakesSerializationAndPropagationTwice()
    {
        final SimSwitch sw = builder().build();
        final SwitchPort a = sw.attach(A, 1500);
        final SwitchPort b = sw.attach(B, 1500);
        send(a, B, 0);
        clock.update(4 * US - 1);
        assertEquals(0, poll(b).size(), "not yet: NIC 0..1 µs, wire 1..2, switch 2..3, wire 3..4");
        clock.update(4 * US);
        final List<RoceFrameParser> got = poll(b);
        assertEquals(1, got.size());
        assertEquals(B.mac(), got.get(0).ethernet().destination(), "the switch writes the destination MAC");
        assertEquals(1, b.switchCounters().get(SwitchCounter.FRAMES_FORWARDED));
        assertEquals(FRAME, b.counters().get(LinkCounter.BYTES_RECEIVED));
    }

    @Test
    void backToBackFramesArriveOneSerializationTimeApart()
    {
        final SimSwitch sw = builder().build();
        final SwitchPort a = sw.attach(A, 1500);
        final SwitchPort b = sw.attach(B, 1500);
        send(a, B, 0);
        send(a, B, 0);
        send(a, B, 0);
        for (int k = 1; k <= 3; k++)
        {
            clock.update((3 + k) * US - 1);
            assertEquals(0, poll(b).size());
            clock.update((3 + k) * US);
            assertEquals(1, poll(b).size(), "frame " + k + " at " + (3 + k) + " µs");
        }
    }

    @Test
    void aFullHostQueuePushesBackUntilItsOldestFrameIsSerialized()
    {
        final SimSwitch sw = SimSwitch.builder().clock(clock).lineRateBps(10_000_000_000L).propagationDelayNs(US)
            .build();
        final SwitchPort a = sw.attach(A, 1500);
        sw.attach(B, 1500);
        // Default NIC queue: 2 frames not yet serialized. Frame 1 is on the wire 0..1 µs, frame 2 waits (1..2 µs).
        send(a, B, 0);
        send(a, B, 0);
        assertEquals(-1, a.tryClaim(FRAME));
        assertEquals(1, a.counters().get(LinkCounter.SEND_BACK_PRESSURE));
        assertEquals(US, a.nicRoomNs());
        assertEquals(US, sw.nextEventNs(), "the NIC takes a frame again before frame 1 reaches the switch (2 µs)");
        clock.update(US - 1);
        assertEquals(-1, a.tryClaim(FRAME));
        // Frame 1's last bit left at 1 µs: it is on the wire to the switch, no longer in the NIC's queue.
        clock.update(US);
        send(a, B, 0);
        assertEquals(-1, a.tryClaim(FRAME));
        assertEquals(2 * US, a.nicRoomNs());
        clock.update(2 * US);
        send(a, B, 0);
        assertEquals(3, a.counters().get(LinkCounter.SEND_BACK_PRESSURE));
    }

    @Test
    void theOutputQueueTailDropsBeyondItsBuffer()
    {
        // Buffer: 3 frames. A and C each send 5 frames at t = 0 to B. Two frames arrive every µs from 2 µs (A's
        // first at equal times), one leaves per µs: at 2 µs A1, C1 in, A1 out (1 left); 3 µs A2, C2 in (3), C1 out
        // (2); 4 µs A3 in (3), C3 dropped, A2 out (2); 5 µs A4 in, C4 dropped; 6 µs A5 in, C5 dropped. 3 drops.
        final SimSwitch sw = builder().bufferBytes(3 * FRAME).build();
        final SwitchPort a = sw.attach(A, 1500);
        final SwitchPort b = sw.attach(B, 1500);
        final SwitchPort c = sw.attach(C, 1500);
        for (int i = 0; i < 5; i++)
        {
            send(a, B, 0);
            send(c, B, 0);
        }
        int delivered = 0;
        for (long t = 0; t <= 20; t++)
        {
            clock.update(t * US);
            delivered += poll(b).size();
        }
        assertEquals(7, delivered);
        assertEquals(3, b.switchCounters().get(SwitchCounter.TAIL_DROPS));
        assertEquals(3 * FRAME, b.switchCounters().get(SwitchCounter.TAIL_DROP_BYTES));
        assertEquals(3 * FRAME, b.maxQueueBytes());
    }

    @Test
    void redMarksEctFramesAboveKmaxAndNeverNotEct()
    {
        // Kmin = Kmax = 0: a frame leaving with anything behind it is marked (probability 1 above Kmax). A sends 4
        // ECT(0) frames and C 4 Not-ECT frames at t = 0 to B: every frame but the last to leave has a frame behind
        // it; only A's are ECN-capable. A's 4 leave at 2, 4, 6, 8 µs with C's behind them: 4 marks.
        final SimSwitch sw = builder().red(0, 0, 1.0).build();
        final SwitchPort a = sw.attach(A, 1500);
        final SwitchPort b = sw.attach(B, 1500);
        final SwitchPort c = sw.attach(C, 1500);
        for (int i = 0; i < 4; i++)
        {
            send(a, B, 0x02);
            send(c, B, 0x00);
        }
        int ce = 0;
        int notEct = 0;
        for (long t = 0; t <= 20; t++)
        {
            clock.update(t * US);
            for (final RoceFrameParser frame : poll(b))
            {
                if (3 == frame.ipv4().ecn())
                {
                    ce++;
                }
                else
                {
                    assertEquals(0, frame.ipv4().ecn(), "Not-ECT stays Not-ECT");
                    notEct++;
                }
            }
        }
        assertEquals(4, ce);
        assertEquals(4, notEct);
        assertEquals(4, b.switchCounters().get(SwitchCounter.ECN_MARKED));
    }

    @Test
    void redProbabilityRisesLinearlyFromKminToPmaxAtKmax()
    {
        final SimSwitch sw = builder().red(100_000, 400_000, 0.2).build();
        assertEquals(0.0, sw.markProbability(100_000));
        assertEquals(0.1, sw.markProbability(250_000), 1e-12);
        assertEquals(0.2, sw.markProbability(400_000), 1e-12);
        assertEquals(1.0, sw.markProbability(400_001));
    }

    @Test
    void defaultThresholdsScaleWithTheLineRateAsHpccs()
    {
        final SimSwitch at25 = SimSwitch.builder().clock(clock).build();
        assertEquals(100_000, at25.kminBytes());
        assertEquals(400_000, at25.kmaxBytes());
        assertEquals(0.2, at25.pmax());
        assertEquals(1_600_000, at25.bufferBytes());
        final SimSwitch at100 = SimSwitch.builder().clock(clock).lineRateBps(100_000_000_000L).build();
        assertEquals(400_000, at100.kminBytes());
        assertEquals(1_600_000, at100.kmaxBytes());
    }

    @Test
    void markingIsTheSameForTheSameSeed()
    {
        assertEquals(marks(7), marks(7));
        assertFalse(marks(7).equals(marks(8)) && marks(8).equals(marks(9)), "seeds change the draws");
    }

    /** Which of 40 ECT frames (20 from A, 20 from C, all at t = 0) leave marked, with Pmax 0.5 between 0 and 40. */
    private List<Integer> marks(final long seed)
    {
        clock.update(0);
        final SimSwitch sw = builder().seed(seed).red(0, 40 * FRAME, 0.5).build();
        final SwitchPort a = sw.attach(A, 1500);
        final SwitchPort b = sw.attach(B, 1500);
        final SwitchPort c = sw.attach(C, 1500);
        for (int i = 0; i < 20; i++)
        {
            send(a, B, 0x02);
            send(c, B, 0x02);
        }
        final List<Integer> marked = new ArrayList<>();
        int n = 0;
        for (long t = 0; t <= 60; t++)
        {
            clock.update(t * US);
            for (final RoceFrameParser frame : poll(b))
            {
                if (3 == frame.ipv4().ecn())
                {
                    marked.add(n);
                }
                n++;
            }
        }
        assertEquals(40, n);
        return marked;
    }

    @Test
    void queueIsSampledOverSimulatedTime()
    {
        // Samples every µs from t = 0. A and C send 3 frames each at t = 0; the queue toward B holds (after the
        // arrivals and the departure of each µs): 2 µs 1 frame, 3 µs 2, 4 µs 3 ... see the tail-drop test's order.
        final SimSwitch sw = builder().sampleIntervalNs(US).build();
        final SwitchPort a = sw.attach(A, 1500);
        final SwitchPort b = sw.attach(B, 1500);
        final SwitchPort c = sw.attach(C, 1500);
        clock.update(0);
        sw.advance(0);
        for (int i = 0; i < 3; i++)
        {
            send(a, B, 0);
            send(c, B, 0);
        }
        clock.update(10 * US);
        poll(b);
        // Samples at 0..10 µs; at equal times frames move before the sample: 2 µs: 2 in, 1 out = 1 queued;
        // 3 µs: +2 -1 = 2; 4 µs: +2 -1 = 3; 5 µs: 2; 6 µs: 1; 7 µs: 0.
        final int[] samples = b.queueSamples();
        assertEquals(11, samples.length);
        assertEquals(List.of(0, 0, 1, 2, 3, 2, 1, 0, 0, 0, 0), toFrames(samples));
    }

    @Test
    void nextEventIsTheNextArrivalDepartureOrDelivery()
    {
        // One frame from A to B at t = 0: it reaches the switch at 2 µs; the switch sends it 2..3 µs and it reaches
        // B at 4 µs (the class comment's timing); then nothing is in flight.
        final SimSwitch sw = builder().build();
        final SwitchPort a = sw.attach(A, 1500);
        final SwitchPort b = sw.attach(B, 1500);
        clock.update(0);
        sw.advance(0);
        assertEquals(Long.MAX_VALUE, sw.nextEventNs(), "nothing in flight");
        send(a, B, 0);
        assertEquals(2 * US, sw.nextEventNs());
        clock.update(2 * US);
        sw.advance(2 * US);
        assertEquals(4 * US, sw.nextEventNs());
        clock.update(4 * US);
        assertEquals(1, poll(b).size());
        assertEquals(Long.MAX_VALUE, sw.nextEventNs());
    }

    @Test
    void eachPortCountsTheBytesItForwardedBySourcePort()
    {
        // A sends two frames to B, C one: B's output queue sent 2 * FRAME from A's port and FRAME from C's.
        final SimSwitch sw = builder().build();
        final SwitchPort a = sw.attach(A, 1500);
        final SwitchPort b = sw.attach(B, 1500);
        final SwitchPort c = sw.attach(C, 1500);
        send(a, B, 0);
        send(a, B, 0);
        send(c, B, 0);
        clock.update(10 * US);
        assertEquals(3, poll(b).size());
        assertEquals(2L * FRAME, b.forwardedBytesFrom(a.number()));
        assertEquals(FRAME, b.forwardedBytesFrom(c.number()));
        assertEquals(0, b.forwardedBytesFrom(b.number()));
        assertEquals(0, a.forwardedBytesFrom(c.number()), "nothing went to A");
    }

    private static List<Integer> toFrames(final int[] bytes)
    {
        final List<Integer> frames = new ArrayList<>();
        for (final int b : bytes)
        {
            frames.add(b / FRAME);
        }
        return frames;
    }

    @Test
    void framesToUnknownAddressesAreCountedAndDropped()
    {
        final SimSwitch sw = builder().build();
        final SwitchPort a = sw.attach(A, 1500);
        final SwitchPort b = sw.attach(B, 1500);
        send(a, LinkAddress.of("02:00:00:00:00:99", "10.0.0.99"), 0);
        clock.update(10 * US);
        assertEquals(0, poll(b).size());
        assertEquals(1, a.switchCounters().get(SwitchCounter.UNROUTABLE));
    }
}
