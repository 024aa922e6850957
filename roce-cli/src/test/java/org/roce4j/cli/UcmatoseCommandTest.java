package org.roce4j.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.roce4j.cli.ucmatose.Ucmatose;
import org.roce4j.cli.ucmatose.UcmatoseSettings;
import org.roce4j.cm.rdmacm.RdmaCm;
import org.roce4j.transport.link.memory.MemoryFabric;
import org.roce4j.verbs.DeviceOptions;
import org.roce4j.verbs.RdmaDevice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code roce ucmatose} run in process: roce4j's client against roce4j's server over the in-memory fabric, RC
 * connections through rdma_cm, with cmatose's output lines, return status and completions; option errors and
 * refusals as cmatose reports them.
 */
class UcmatoseCommandTest
{
    /** cmatose.c run_client and main, with messages. */
    private static final List<String> CLIENT_LINES = List.of("cmatose: starting client", "cmatose: connecting",
        "receiving data transfers", "sending replies", "data transfers complete", "test complete", "return status 0");
    /** cmatose.c run_server and main, with messages. */
    private static final List<String> SERVER_LINES = List.of("cmatose: starting server", "initiating data transfers",
        "completing sends", "receiving data transfers", "data transfers complete", "cmatose: disconnecting",
        "disconnected", "test complete", "return status 0");
    /** A wait of roce4j's that ends a run which would otherwise hang. */
    private static final String TIMEOUT_MS = "20000";

    private static List<String> server(final Cli.Result result)
    {
        return result.outLines().stream().filter(l -> l.startsWith("[server] "))
            .map(l -> l.substring("[server] ".length())).toList();
    }

    private static List<String> client(final Cli.Result result)
    {
        return result.outLines().stream().filter(l -> !l.startsWith("[server] ")).toList();
    }

    @Test
    void oneConnectionPrintsCmatosesLinesInBothRolesAndReturnsZero()
    {
        final Cli.Result result = Cli.run("ucmatose", "--link", "memory", "--timeout", TIMEOUT_MS);
        assertEquals(0, result.exitCode(), result.out() + result.err());
        assertEquals(CLIENT_LINES, client(result));
        assertEquals(SERVER_LINES, server(result));
        assertFalse(result.err().contains("error status"), result.err());
    }

    @Test
    void tenConnectionsAtOnceInBothRoles()
    {
        final Cli.Result result = Cli.run("ucmatose", "--link", "memory", "-c", "10", "--timeout", TIMEOUT_MS);
        assertEquals(0, result.exitCode(), result.out() + result.err());
        assertEquals(CLIENT_LINES, client(result));
        assertEquals(SERVER_LINES, server(result));
        assertFalse(result.err().contains("error status"), result.err());
    }

    @Test
    void everySendAndReceiveCompletesWithSuccessOnTenConnections() throws Exception
    {
        final int connections = 10;
        final int messages = 7;
        final UcmatoseSettings settings = new UcmatoseSettings(true, null, null, 7471, connections, messages, 1000,
            0x20, -1, Long.parseLong(TIMEOUT_MS));
        final InetAddress serverIp = InetAddress.getByName(InProcessPorts.SERVER_IP);
        final AtomicReference<Ucmatose> server = new AtomicReference<>();
        final AtomicReference<Ucmatose> client = new AtomicReference<>();
        final StringWriter out = new StringWriter();
        final int exit = CmToolRunner.inProcess("ucmatose", new LinkOption(),
            (cm, o, e, listening) ->
            {
                server.set(new Ucmatose(cm, settings.role(true, null, null), o, e).onListening(listening));
                return server.get().run();
            },
            (cm, o, e, listening) ->
            {
                client.set(new Ucmatose(cm, settings.role(false, serverIp, null), o, e));
                return client.get().run();
            },
            new PrintWriter(out, true), new PrintWriter(out, true));
        assertEquals(0, exit, out.toString());
        // The server polls its sends and its receives, the client its receives (cmatose never polls its sends).
        assertEquals(2L * connections * messages, server.get().completions(), out.toString());
        assertEquals((long)connections * messages, client.get().completions(), out.toString());
        assertEquals(0, server.get().failedCompletions());
        assertEquals(0, client.get().failedCompletions());
    }

    @Test
    void noMessagesOnlyConnectsAndDisconnects()
    {
        final Cli.Result result = Cli.run("ucmatose", "--link", "memory", "-c", "2", "-C", "0", "--timeout",
            TIMEOUT_MS);
        assertEquals(0, result.exitCode(), result.out() + result.err());
        assertEquals(List.of("cmatose: starting client", "cmatose: connecting", "test complete", "return status 0"),
            client(result));
        assertEquals(List.of("cmatose: starting server", "cmatose: disconnecting", "disconnected", "test complete",
            "return status 0"), server(result));
    }

    @Test
    void aClientWithNobodyListeningIsRejectedWithReason8() throws Exception
    {
        final UcmatoseSettings settings = new UcmatoseSettings(false, InetAddress.getByName(InProcessPorts.SERVER_IP),
            null, 7471, 1, 10, 100, -1, -1, Long.parseLong(TIMEOUT_MS));
        final StringWriter out = new StringWriter();
        try (MemoryFabric fabric = new MemoryFabric();
            RdmaDevice serverDevice = RdmaDevice.open(fabric.attach(InProcessPorts.SERVER, 1500),
                DeviceOptions.dedicated());
            RdmaCm serverCm = RdmaCm.open(serverDevice);
            RdmaDevice clientDevice = RdmaDevice.open(fabric.attach(InProcessPorts.CLIENT, 1500),
                DeviceOptions.dedicated());
            RdmaCm clientCm = RdmaCm.open(clientDevice))
        {
            final PrintWriter writer = new PrintWriter(out, true);
            final int exit = new Ucmatose(clientCm, settings, writer, writer).run();
            assertEquals(8, exit, out.toString());
            assertTrue(out.toString().contains("cmatose: event: RDMA_CM_EVENT_REJECTED, error: 8"), out.toString());
            assertTrue(out.toString().contains("return status 8"), out.toString());
            assertEquals(0, serverCm.errors(), "the CM that rejected (no listener, REJ reason 8) met no error");
        }
    }

    @Test
    void anAddressThatDoesNotResolveIsEaiNoname()
    {
        final Cli.Result result = Cli.run("ucmatose", "-s", "nosuchhost.invalid");
        assertEquals(UcmatoseCommand.EXIT_EAI_NONAME, result.exitCode(), result.out() + result.err());
        assertEquals("cmatose: starting client", result.outLines().get(0));
        assertTrue(result.outLines().get(1).startsWith("cmatose: getaddrinfo error: "), result.out());
        assertEquals("return status -2", result.lastOutLine());
    }

    @Test
    void badOptionsAndRefusedOnesPrintTheUsageAndExit1()
    {
        final Cli.Result unknown = Cli.run("ucmatose", "-x");
        assertEquals(UcmatoseCommand.EXIT_USAGE, unknown.exitCode());
        for (final String[] args : List.of(new String[] {"ucmatose", "-m"}, new String[] {"ucmatose", "-P", "ib"},
            new String[] {"ucmatose", "-f", "gid"}, new String[] {"ucmatose", "-p", "0"}))
        {
            final Cli.Result refused = Cli.run(args);
            assertEquals(UcmatoseCommand.EXIT_USAGE, refused.exitCode(), String.join(" ", args));
            assertTrue(refused.out().contains("\t[-a ack_timeout]"), refused.out());
            assertTrue(refused.err().startsWith("roce ucmatose: "), refused.err());
        }
    }

    @Test
    void anAckTimeoutIsReportedAsAFailedOptionAndTheRunGoesOn()
    {
        final Cli.Result result = Cli.run("ucmatose", "--link", "memory", "-a", "14", "-C", "2", "--timeout",
            TIMEOUT_MS);
        assertEquals(0, result.exitCode(), result.out() + result.err());
        assertTrue(result.err().contains("cmatose: set ack timeout option failed: Operation not supported"),
            result.err());
        assertTrue(result.out().contains("[server] cmatose: set ack timeout option failed"), result.out());
    }
}
