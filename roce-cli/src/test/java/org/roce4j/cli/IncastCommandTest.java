package org.roce4j.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roce4j.cli.incast.IncastResult;
import org.roce4j.cli.incast.IncastSettings;
import org.roce4j.cli.incast.IncastSimulation;
import org.roce4j.transport.cc.CongestionControl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code roce incast} (issue 18 point 5): two senders into one receiver through the simulated switch at 25 Gb/s for
 * 5 ms of simulated time (64 WRITEs of 16 KiB posted per sender, 2 MiB in flight against a 1.6 MB buffer). With DCQCN
 * the flows share the line without a drop, 8 of them too; without it the queue sits at the buffer and the switch
 * drops. A run is deterministic for its seed; the JSON has every field; --plot writes the three PNGs.
 */
class IncastCommandTest
{
    private static final long SEED = 7;

    private static IncastResult run(final CongestionControl cc)
    {
        System.out.println("IncastCommandTest seed " + SEED);
        return new IncastSimulation(new IncastSettings().senders(2).congestionControl(cc).durationMs(5).seed(SEED))
            .run();
    }

    @Test
    void withDcqcnTwoFlowsUseTheLineWithoutDrops()
    {
        // No fairness bound in 5 ms: with this seed one flow is cut far down at the start, its target divided by 8
        // at its first increase (QCN's target reduction), and it climbs back in rpg_ai_rate steps while the queue
        // is empty, so the two are even only after 12 ms (Jain 0.72 over 5 ms, 0.905 over 20 ms).
        final IncastResult r = run(CongestionControl.DCQCN);
        assertTrue(r.meanGoodputGbps() > 20, "goodput " + r.meanGoodputGbps());
        assertEquals(0, r.counters().drops());
        assertEquals(0, r.counters().failedWrites());
        assertTrue(r.counters().cnpsSent() > 0);
        assertEquals(r.counters().cnpsSent(), r.counters().cnpsHandled(), "every CNP reached its sender");
        assertTrue(r.queueMaxBytes() < r.bufferBytes(), "max " + r.queueMaxBytes());
        assertTrue(r.queuePercentile(0.5) < r.kmaxBytes(), "p50 " + r.queuePercentile(0.5));

        final IncastResult again = run(CongestionControl.DCQCN);
        assertArrayEquals(r.queueSamples(), again.queueSamples(), "deterministic for its seed");
        assertEquals(r.counters(), again.counters());
    }

    @Test
    void withDcqcnEightFlowsStartingTogetherStayUnderTheBuffer()
    {
        // 8 x 25 Gb/s into 25 Gb/s for 3 ms: the first peak stays well under the 1.6 MB buffer (the NIC's queue does
        // not keep sending at line rate after a cut) and the flows do not all come back at half the line rate after
        // it (QCN's target reduction): no drop, and the flows share the line.
        System.out.println("IncastCommandTest seed " + SEED);
        final IncastResult r = new IncastSimulation(new IncastSettings().senders(8)
            .congestionControl(CongestionControl.DCQCN).durationMs(3).seed(SEED)).run();
        assertEquals(0, r.counters().drops());
        assertTrue(r.queueMaxBytes() < r.bufferBytes() * 3 / 4, "max " + r.queueMaxBytes());
        assertTrue(r.jainOfGoodputs() > 0.9, "Jain " + r.jainOfGoodputs());
        assertEquals(r.counters().cnpsSent(), r.counters().cnpsHandled(), "every CNP reached its sender");
    }

    @Test
    void withoutCongestionControlTheQueueSitsAtTheBufferAndDrops()
    {
        final IncastResult r = run(CongestionControl.NONE);
        assertTrue(r.counters().drops() > 0);
        assertEquals(r.counters().drops(), r.counters().bottleneckDrops(), "only at the receiver's port");
        assertTrue(r.counters().retransmitted() > 0, "go-back-N recovers the drops");
        assertEquals(0, r.counters().cnpsSent());
        assertTrue(r.queueMaxBytes() > r.bufferBytes() - 9018, "max " + r.queueMaxBytes());
        assertTrue(r.queuePercentile(0.5) > r.kmaxBytes(), "p50 " + r.queuePercentile(0.5));
        assertTrue(r.fractionAtBuffer() > 0.2, "at the buffer " + r.fractionAtBuffer());
    }

    @Test
    void theJsonHasEveryFieldAndPlotsAreWritten(@TempDir final Path dir)
    {
        final Cli.Result result = Cli.run("incast", "-n", "2", "--duration", "2", "--cc", "dcqcn", "--seed",
            String.valueOf(SEED), "--bin", "250", "--json", "--plot", dir.toString());
        assertEquals(0, result.exitCode(), result.err());
        final String json = result.out().trim();
        assertTrue(json.startsWith("{") && json.endsWith("}"), json);
        for (final String key : List.of("senders", "cc", "schedule", "durationMs", "seed", "lineRateGbps",
            "propagationDelayUs", "bufferBytes", "kminBytes", "kmaxBytes", "pmax", "pathMtu", "messageBytes", "depth",
            "binUs", "flows", "goodputGbps", "jain", "phases", "queue", "p50Bytes", "p99Bytes", "maxBytes",
            "fractionBetweenKminKmax", "fractionAboveKmax", "fractionAtBuffer", "sampleUs", "samplesBytes",
            "counters", "np_ecn_marked_roce_packets", "np_cnp_sent", "rp_cnp_handled", "rp_cnp_ignored",
            "switchEcnMarked", "drops", "bottleneckDrops", "packetsRetransmitted", "failedWrites", "wallMs", "flow",
            "sender", "startMs", "endMs", "throughputGbps", "rateGbps", "fromMs", "toMs", "meanJain", "fairAfterMs"))
        {
            assertTrue(json.contains("\"" + key + "\":"), key);
        }
        assertTrue(json.contains("\"senders\":2,\"cc\":\"dcqcn\""), json.substring(0, 80));
        // 2 ms in 250 µs bins: 8 values per flow series; two flows.
        assertEquals(2, json.split("\"throughputGbps\":\\[").length - 1);
        assertTrue(json.matches("(?s).*\"throughputGbps\":\\[([-0-9.e]+,){7}[-0-9.e]+\\].*"), "8 bins");
        assertEquals(json.chars().filter(c -> '{' == c).count(), json.chars().filter(c -> '}' == c).count());
        for (final String png : List.of("throughput.png", "rate.png", "queue.png"))
        {
            final Path file = dir.resolve(png);
            assertTrue(Files.isRegularFile(file), png);
            final byte[] head = readHead(file);
            assertArrayEquals(new byte[] {(byte)0x89, 'P', 'N', 'G'}, head, png + " is a PNG");
            assertTrue(result.err().contains("wrote " + file), result.err());
        }
    }

    @Test
    void badOptionsAreUsageErrors()
    {
        final Cli.Result tooMany = Cli.run("incast", "-n", "17");
        assertEquals(2, tooMany.exitCode());
        assertTrue(tooMany.err().contains("-n 17: 1 to 16 senders"), tooMany.err());
        final Cli.Result schedule = Cli.run("incast", "--schedule", "sometimes");
        assertEquals(2, schedule.exitCode());
        assertTrue(schedule.err().contains("together or staggered"), schedule.err());
    }

    private static byte[] readHead(final Path file)
    {
        try
        {
            final byte[] all = Files.readAllBytes(file);
            return new byte[] {all[0], all[1], all[2], all[3]};
        }
        catch (final java.io.IOException ex)
        {
            throw new java.io.UncheckedIOException(ex);
        }
    }
}
