package org.roce4j.cli;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roce4j.transport.link.fault.FaultReport;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.pcap.PcapReader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code --faults}, {@code --pcap} and {@code --trace} on pingpong, perf and rping (issue 14): the run completes
 * through the faults, what was injected is printed at the end, the capture holds both directions, the trace a line
 * per frame; bad rules fail with the command's exit code and a message naming the token.
 */
class LinkDecoratorsTest
{
    @Test
    void pingpongCompletesThroughFaultsAndReportsThemWithACaptureAndATrace(@TempDir final Path dir) throws Exception
    {
        final Path pcap = dir.resolve("pp.pcapng");
        final Cli.Result result = Cli.run("pingpong", "-n", "40", "-s", "64", "--faults",
            "drop=1,every=9,dir=tx;dup=1,every=7,dir=rx;seed=5", "--pcap", pcap.toString(), "--trace",
            "--timeout", "20000");
        assertEquals(0, result.exitCode(), result.err());
        assertTrue(result.out().contains("40 iters in"), result.out());
        final List<FaultReport> reports = FaultReport.find(result.err());
        assertEquals(2, reports.size(), "a line per side's port:\n" + result.err());
        long drops = 0;
        for (final FaultReport report : reports)
        {
            assertEquals("drop=1,every=9,dir=tx;dup=1,every=7,dir=rx;seed=5", report.description());
            assertEquals(5, report.seed());
            drops += report.tx().drops();
            assertEquals(0, report.tx().duplicates(), "no duplicates on send: " + report);
            assertEquals(0, report.rx().drops(), "no drops on receive: " + report);
        }
        assertTrue(drops >= 2 * (40 / 9), "every ninth frame each side sends: " + result.err());
        assertTrue(result.err().contains("pcap: "), result.err());

        int outbound = 0;
        int inbound = 0;
        final RoceFrameParser parser = new RoceFrameParser();
        try (PcapReader reader = PcapReader.open(pcap))
        {
            while (reader.next())
            {
                assertEquals(FrameStatus.OK, parser.parse(reader.buffer(), 0, reader.capturedLength(), true));
                outbound += PcapReader.DIRECTION_OUTBOUND == reader.direction() ? 1 : 0;
                inbound += PcapReader.DIRECTION_INBOUND == reader.direction() ? 1 : 0;
            }
        }
        assertTrue(outbound >= 40 && inbound >= 40, "the client's frames both ways: " + outbound + "/" + inbound);
        assertTrue(result.err().contains(" tx 192.168.77.2:"), "trace lines of sent frames:\n" + result.err());
        assertTrue(result.err().contains(" rx 192.168.77.1:"), "trace lines of received frames:\n" + result.err());
        assertTrue(result.err().contains("RC_SEND_ONLY") && result.err().contains("icrc=ok"), result.err());
    }

    @Test
    void perfAndRpingTakeTheSameOptions()
    {
        final Cli.Result perf = Cli.run("perf", "send_lat", "-n", "50", "--faults", "ecn=1,every=3;seed=1");
        assertEquals(0, perf.exitCode(), perf.err());
        assertTrue(perf.err().contains("faults 'ecn=1,every=3;seed=1' (seed 1) injected: tx drop=0 dup=0 " +
            "reorder=0 delay=0 corrupt=0 ecn="), perf.err());
        for (final FaultReport report : FaultReport.find(perf.err()))
        {
            assertTrue(report.total().ecnMarks() > 0, "every third frame marked: " + report);
        }

        final Cli.Result rping = Cli.run("rping", "--link", "memory", "-C", "3", "--trace");
        assertEquals(0, rping.exitCode(), rping.err());
        assertTrue(rping.err().contains("UD_SEND_ONLY"), "the CM's MADs on QP1:\n" + rping.err());
        assertTrue(rping.err().contains("RC_RDMA_READ_REQUEST"), rping.err());
    }

    @Test
    void badRulesFailWithEachCommandsExitCodeNamingTheToken()
    {
        final Cli.Result pingpong = Cli.run("pingpong", "--faults", "drop=0.1,colour=red");
        assertEquals(PingpongCommand.EXIT_FAILURE, pingpong.exitCode());
        assertTrue(pingpong.err().contains("--faults 'drop=0.1,colour=red': rule 1 'drop=0.1,colour=red': " +
            "'colour=red': unknown option 'colour'"), pingpong.err());
        final Cli.Result perf = Cli.run("perf", "send_lat", "--faults", "drop=2");
        assertEquals(1, perf.exitCode());
        assertTrue(perf.err().contains("the probability must be between 0 and 1"), perf.err());
        final Cli.Result rping = Cli.run("rping", "--link", "memory", "-C", "1", "--faults", "seed=1");
        assertEquals(RpingCommand.EXIT_EINVAL, rping.exitCode());
        assertTrue(rping.err().contains("no fault rule, only a seed"), rping.err());
    }
}
