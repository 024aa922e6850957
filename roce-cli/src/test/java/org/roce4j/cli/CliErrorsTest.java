package org.roce4j.cli;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Errors worded as the mirrored tools word them, and one exit-code policy (issue 16; the table in README.md):
 * ibv_*_pingpong and perftest return 1 on every error, bad options included; rping returns 22 (EINVAL) for bad
 * options and a bad --link, 254 when getaddrinfo fails (EAI_NONAME), 255 for a failure once running; demo and
 * decode keep picocli's 2 for usage errors.
 */
class CliErrorsTest
{
    private static final String NO_SUCH_HOST = "nosuchhost.invalid";

    @ParameterizedTest(name = "{0} -1")
    @ValueSource(strings = {"--linger", "--quiet"})
    void aNegativeLingerOrQuietTimeIsRefusedBeforeAnythingRuns(final String option)
    {
        final Cli.Result pingpong = Cli.run("pingpong", option, "-1", "--link", "udp:127.0.0.1", "-g", "1",
            "127.0.0.1");
        assertEquals(PingpongCommand.EXIT_FAILURE, pingpong.exitCode());
        assertEquals("roce pingpong: " + option + " -1: a time is at least 0", pingpong.err().strip());
        assertEquals("", pingpong.out());
    }

    @Test
    void anUnresolvableServerIsReportedAsGetaddrinfoReportsIt()
    {
        // The name is checked before the link opens, so this spec is never bound.
        final Cli.Result pingpong = Cli.run("pingpong", "--link", "udp:127.0.0.1", "-g", "1", NO_SUCH_HOST);
        assertEquals(PingpongCommand.EXIT_FAILURE, pingpong.exitCode());
        assertEquals("roce pingpong: Name or service not known for nosuchhost.invalid:18515", pingpong.err().strip());
        assertEquals("", pingpong.out());

        final Cli.Result perf = Cli.run("perf", "send_lat", "--link", "udp:127.0.0.1", "-p", "4444", NO_SUCH_HOST);
        assertEquals(PerfCommand.EXIT_FAILURE, perf.exitCode());
        assertEquals("roce perf: Name or service not known for nosuchhost.invalid:4444", perf.err().strip());

        final Cli.Result rping = Cli.run("rping", "-c", "-a", NO_SUCH_HOST, "--link", "udp:127.0.0.1");
        assertEquals(RpingCommand.EXIT_EAI_NONAME, rping.exitCode());
        assertEquals("getaddrinfo failed (Name or service not known) - invalid hostname or IP address",
            rping.out().strip(), "rping prints it on stdout");
    }

    /**
     * pp_client_exch_dest and ethernet_client_connect try once; roce did 30 s of silent retries (and then said
     * "pingpong exchange with ... failed").
     */
    @Test
    void aRefusedConnectionFailsAtOnceWithTheToolsWords()
    {
        final int closed = Cli.freeTcpPort();
        final Cli.Result pingpong = Cli.run("pingpong", "--link", "udp:127.0.0.1,port=" + Cli.freeUdpPort(), "-g", "1",
            "-p", Integer.toString(closed), "127.0.0.1");
        assertEquals(PingpongCommand.EXIT_FAILURE, pingpong.exitCode(), pingpong.out() + pingpong.err());
        assertEquals("roce pingpong: Couldn't connect to 127.0.0.1:" + closed + ": Connection refused",
            pingpong.err().strip());

        final Cli.Result perf = Cli.run("perf", "send_lat", "--link", "udp:127.0.0.1,port=" + Cli.freeUdpPort(), "-p",
            Integer.toString(closed), "127.0.0.1");
        assertEquals(PerfCommand.EXIT_FAILURE, perf.exitCode(), perf.out() + perf.err());
        assertEquals("roce perf: Couldn't connect to 127.0.0.1:" + closed + ": Connection refused",
            perf.err().strip());
    }

    @Test
    void aPortInUseIsNamedWithTheOptionThatChangesIt() throws IOException
    {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("0.0.0.0")))
        {
            final String port = Integer.toString(taken.getLocalPort());
            final String expected = "Couldn't listen to port " + port + ": Address already in use (another program " +
                "listens on it; choose another port with -p, on both sides)";
            final Cli.Result pingpong = Cli.run("pingpong", "--link", "udp:127.0.0.1", "-g", "1", "-p", port);
            assertEquals(PingpongCommand.EXIT_FAILURE, pingpong.exitCode());
            assertEquals("roce pingpong: " + expected, pingpong.err().strip());

            final Cli.Result perf = Cli.run("perf", "write_bw", "--link", "udp:127.0.0.1", "-p", port);
            assertEquals(PerfCommand.EXIT_FAILURE, perf.exitCode());
            assertEquals("roce perf: " + expected, perf.err().strip());
        }
    }

    @Test
    void exitCodesFollowTheMirroredTools() throws IOException
    {
        assertEquals(1, Cli.run("pingpong", "--no-such-option").exitCode(), "ibv_rc_pingpong: usage, return 1");
        assertEquals(1, Cli.run("pingpong", "-n", "many").exitCode());
        assertEquals(1, Cli.run("pingpong", "--link", "bogus:1", "-p", Integer.toString(Cli.freeTcpPort())).exitCode());
        assertEquals(1, Cli.run("perf", "--no-such-option", "send_bw").exitCode(), "perftest: FAILURE");
        assertEquals(1, Cli.run("perf").exitCode(), "perftest: FAILURE");
        assertEquals(1, Cli.run("perf", "send_bw", "--link", "bogus:1").exitCode());

        assertEquals(22, Cli.run("rping", "--no-such-option").exitCode());
        final Cli.Result badLink = Cli.run("rping", "-c", "-a", "127.0.0.1", "--link", "bogus:1");
        assertEquals(22, badLink.exitCode(), "a bad --link is a bad option: EINVAL");
        assertTrue(badLink.err().startsWith("roce rping: unknown link spec 'bogus:1'"), badLink.err());
        assertEquals(22, Cli.run("rping", "-c", "-a", "127.0.0.1", "--link", "memory:10.0.0.1").exitCode());
        try (DatagramSocket taken = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0)))
        {
            final Cli.Result inUse = Cli.run("rping", "-c", "-a", "127.0.0.1", "--link",
                "udp:127.0.0.1,port=" + taken.getLocalPort());
            assertEquals(255, inUse.exitCode(), "a link that cannot open: rping's -1");
            assertTrue(inUse.err().contains("port " + taken.getLocalPort() + " is already in use"), inUse.err());
        }

        assertEquals(2, Cli.run("decode").exitCode());
        assertEquals(2, Cli.run("demo", "--no-such-option").exitCode());
        assertEquals(2, Cli.run().exitCode());
        assertEquals(2, Cli.run("no-such-command").exitCode());
        assertEquals(0, Cli.run("pingpong", "--help").exitCode());
        assertEquals(0, Cli.run("--version").exitCode());
    }

    /**
     * rping -s over the default memory link runs both sides here: it says so (it used to ping itself forever in
     * silence).
     */
    @Test
    void rpingOverTheMemoryLinkSaysThatItRunsBothSides()
    {
        final Cli.Result result = Cli.run("rping", "-s", "-C", "1");
        assertEquals(0, result.exitCode(), result.out() + result.err());
        assertTrue(result.err().startsWith("roce rping: --link memory runs the client (192.168.77.2) and the server " +
            "(192.168.77.1) both in this process; -s/-c select nothing here."), result.err());
        final Cli.Result quiet = Cli.run("rping", "-C", "1");
        assertEquals(0, quiet.exitCode(), quiet.out() + quiet.err());
        assertTrue(!quiet.err().contains("--link memory runs"), "no note for a plain in-process run: " + quiet.err());
    }

    @Test
    void aMemoryPortSpecIsRefusedByTheCommands()
    {
        final Cli.Result result = Cli.run("pingpong", "--link", "memory:10.0.0.1", "-g", "1", "127.0.0.1");
        assertEquals(1, result.exitCode());
        assertTrue(result.err().contains("--link memory runs both sides in this process"), result.err());
    }
}
