package org.roce4j.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.roce4j.cli.rping.Rping;
import org.roce4j.cli.rping.RpingSettings;
import org.roce4j.cm.ib.CmCounter;
import org.roce4j.cm.rdmacm.RdmaCm;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.link.memory.MemoryFabric;
import org.roce4j.verbs.DeviceOptions;
import org.roce4j.verbs.RdmaDevice;
import org.roce4j.wire.addr.Mac;
import org.roce4j.wire.header.Ipv4Header;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code roce rping} run in process: roce4j against roce4j over the in-memory fabric with rping's output, rping's
 * ping data pattern, validation and exit codes; option errors as rping reports them; and a client whose connect is
 * rejected because nobody listens.
 */
class RpingCommandTest
{
    /**
     * rping_test_client's buffer for one ping: "rdma-ping-N: " then characters from {@code first} counting up
     * through 'z' and wrapping to 'A', the last byte NUL (printed up to it).
     */
    static String expectedPing(final int ping, final int size)
    {
        final StringBuilder sb = new StringBuilder("rdma-ping-" + ping + ": ");
        int c = 65 + ping % 58;
        while (sb.length() < size - 1)
        {
            sb.append((char)c);
            c = c >= 122 ? 65 : c + 1;
        }
        return sb.substring(0, size - 1);
    }

    @Test
    void tenValidatedPingsInProcessPrintRpingsLinesAndEndWithTheServerSeeingTheDisconnect()
    {
        final Cli.Result result = Cli.run("rping", "--link", "memory", "-C", "10", "-v", "-V", "-S", "64");
        assertEquals(0, result.exitCode(), result.out() + result.err());
        final List<String> pings = result.outLines().stream().filter(l -> l.startsWith("ping data: ")).toList();
        assertEquals(10, pings.size(), result.out());
        for (int i = 0; i < 10; i++)
        {
            assertEquals("ping data: " + expectedPing(i, 64), pings.get(i));
        }
        final List<String> server = result.outLines().stream().filter(l -> l.startsWith("[server] ")).toList();
        assertEquals("[server] server ping data: " + expectedPing(0, 64), server.get(0));
        assertEquals(10, server.stream().filter(l -> l.startsWith("[server] server ping data: ")).count());
        assertTrue(server.contains("[server] server DISCONNECT EVENT..."), result.out());
        assertTrue(server.contains("[server] wait for RDMA_READ_ADV state 10"), result.out());
        assertTrue(result.err().contains("client DISCONNECT EVENT..."), result.err());
        assertTrue(!result.err().contains("data mismatch"), result.err());
    }

    @Test
    void largestRpingSizeAndThePatternWrapping()
    {
        final Cli.Result result = Cli.run("rping", "--link", "memory", "-C", "3", "-v", "-V", "-S", "65535");
        assertEquals(0, result.exitCode(), result.out() + result.err());
        final List<String> pings = result.outLines().stream().filter(l -> l.startsWith("ping data: ")).toList();
        assertEquals(3, pings.size());
        assertEquals("ping data: " + expectedPing(2, 65535), pings.get(2));
    }

    @Test
    void debugPrintsRpingsDebugLines()
    {
        final Cli.Result result = Cli.run("rping", "--link", "memory", "-C", "1", "-d");
        assertEquals(0, result.exitCode(), result.out() + result.err());
        assertTrue(result.out().contains("rdma_connect successful"), result.out());
        assertTrue(result.out().contains("[server] server posted rdma read req"), result.out());
        assertTrue(result.out().contains("[server] Received rkey "), result.out());
    }

    @Test
    void optionErrorsAreRpingsWithExitCode22()
    {
        final Cli.Result none = Cli.run("rping", "-v", "--link", "tunnel:127.0.0.1:1:127.0.0.1:2,ip=10.0.0.1");
        assertEquals(22, none.exitCode());
        assertTrue(none.out().startsWith("rping -s [-vVd] [-S size] [-C count] [-a addr] [-p port]"), none.out());

        final Cli.Result small = Cli.run("rping", "-c", "-a", "10.0.0.1", "-S", "25");
        assertEquals(22, small.exitCode());
        assertEquals("Invalid size 25 (valid range is 26 to 65536)", small.err().trim());
        final Cli.Result large = Cli.run("rping", "-s", "-S", "65536");
        assertEquals(22, large.exitCode());

        assertEquals(22, Cli.run("rping", "-s", "-C", "-1").exitCode());
        assertEquals(22, Cli.run("rping", "-s", "-P").exitCode());
        assertEquals(22, Cli.run("rping", "-s", "--no-such-option").exitCode(), "picocli's invalid input: EINVAL");
        final Cli.Result noServer = Cli.run("rping", "-c", "--link", "tunnel:127.0.0.1:1:127.0.0.1:2,ip=10.0.0.1");
        assertEquals(22, noServer.exitCode());
        assertTrue(noServer.err().contains("needs -a"), noServer.err());
    }

    @Test
    void connectingWhereNobodyListensPrintsTheRejectionAndExits255() throws Exception
    {
        try (MemoryFabric fabric = new MemoryFabric();
            RdmaDevice client = RdmaDevice.open(fabric.attach(new LinkAddress(Mac.parse(
                "02:00:00:00:00:02"), Ipv4Header.parseAddress("10.1.0.2")), 1500), DeviceOptions.dedicated()
                .backoff());
            RdmaDevice server = RdmaDevice.open(fabric.attach(new LinkAddress(Mac.parse(
                "02:00:00:00:00:01"), Ipv4Header.parseAddress("10.1.0.1")), 1500), DeviceOptions.dedicated()
                .backoff());
            RdmaCm clientCm = RdmaCm.open(client);
            RdmaCm serverCm = RdmaCm.open(server))
        {
            final StringWriter out = new StringWriter();
            final StringWriter err = new StringWriter();
            final int exit = new Rping(clientCm, new RpingSettings().server(false)
                .address(InetAddress.getByName("10.1.0.1")).port(4242).count(1),
                new PrintWriter(out, true), new PrintWriter(err, true)).run();
            assertEquals(Rping.EXIT_FAILURE, exit);
            assertEquals("cma event RDMA_CM_EVENT_REJECTED, error 8", err.toString().trim());
            assertEquals(1, serverCm.counters().get(CmCounter.REJ_INVALID_SERVICE_ID));
        }
    }
}
