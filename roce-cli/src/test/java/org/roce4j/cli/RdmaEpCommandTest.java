package org.roce4j.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.roce4j.cli.rdmaep.RdmaEp;
import org.roce4j.cli.rdmaep.RdmaEpSettings;
import org.roce4j.cm.rdmacm.RdmaCm;
import org.roce4j.transport.link.memory.MemoryFabric;
import org.roce4j.verbs.DeviceOptions;
import org.roce4j.verbs.RdmaDevice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code roce rdma_server} and {@code roce rdma_client} run in process: roce4j's rdma_client against roce4j's
 * rdma_server over the in-memory fabric, with the examples' lines, return status and completions; errors as the
 * examples report them.
 */
class RdmaEpCommandTest
{
    private static final String TIMEOUT_MS = "20000";

    @Test
    void rdmaServerWithItsClientInProcessPrintsTheExamplesLines()
    {
        for (final String command : List.of("rdma_server", "rdma_client"))
        {
            final Cli.Result result = Cli.run(command, "--link", "memory", "--timeout", TIMEOUT_MS);
            assertEquals(0, result.exitCode(), command + ":\n" + result.out() + result.err());
            assertEquals(List.of("rdma_client: start", "rdma_client: end 0", "[server] rdma_server: start",
                "[server] rdma_server: end 0"), result.outLines(), command);
            assertEquals("", result.err(), command);
        }
    }

    @Test
    void oneSendEachWayCompletesWithSuccess() throws Exception
    {
        final RdmaEpSettings settings = new RdmaEpSettings(true, InetAddress.getByName("0.0.0.0"), 7471, null, 0,
            Long.parseLong(TIMEOUT_MS));
        final InetAddress serverIp = InetAddress.getByName(InProcessPorts.SERVER_IP);
        final AtomicReference<RdmaEp> server = new AtomicReference<>();
        final AtomicReference<RdmaEp> client = new AtomicReference<>();
        final StringWriter out = new StringWriter();
        final int exit = CmToolRunner.inProcess("rdma_client", new LinkOption(),
            (cm, o, e, listening) ->
            {
                server.set(new RdmaEp(cm, settings, o, e).onListening(listening));
                return server.get().run();
            },
            (cm, o, e, listening) ->
            {
                client.set(new RdmaEp(cm, settings.role(false, serverIp), o, e));
                return client.get().run();
            },
            new PrintWriter(out, true), new PrintWriter(out, true));
        assertEquals(0, exit, out.toString());
        assertEquals(2, server.get().completions(), "a receive, then a send");
        assertEquals(2, client.get().completions(), "a send, then a receive");
        assertEquals(0, server.get().failedCompletions());
        assertEquals(0, client.get().failedCompletions());
    }

    @Test
    void aClientWithNobodyListeningIsRefused() throws Exception
    {
        final RdmaEpSettings settings = new RdmaEpSettings(false, InetAddress.getByName(InProcessPorts.SERVER_IP),
            7471, null, 0, Long.parseLong(TIMEOUT_MS));
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        try (MemoryFabric fabric = new MemoryFabric();
            RdmaDevice serverDevice = RdmaDevice.open(fabric.attach(InProcessPorts.SERVER, 1500),
                DeviceOptions.dedicated());
            RdmaCm serverCm = RdmaCm.open(serverDevice);
            RdmaDevice clientDevice = RdmaDevice.open(fabric.attach(InProcessPorts.CLIENT, 1500),
                DeviceOptions.dedicated());
            RdmaCm clientCm = RdmaCm.open(clientDevice))
        {
            final int exit = new RdmaEp(clientCm, settings, new PrintWriter(out, true), new PrintWriter(err, true))
                .run();
            assertEquals(255, exit, out + "" + err);
            assertEquals(List.of("rdma_client: start", "rdma_client: end -1"), out.toString().lines().toList());
            assertTrue(err.toString().startsWith("rdma_connect: Connection refused"), err.toString());
            assertEquals(0, serverCm.errors(), "the CM that rejected (no listener, REJ reason 8) met no error");
        }
    }

    @Test
    void anAddressOrPortThatDoesNotResolveIsRdmaGetaddrinfosError()
    {
        final Cli.Result host = Cli.run("rdma_client", "-s", "nosuchhost.invalid", "--link", "memory");
        assertEquals(254, host.exitCode(), host.out() + host.err());
        assertEquals("rdma_client: start", host.outLines().get(0));
        assertTrue(host.outLines().get(1).startsWith("rdma_getaddrinfo: "), host.out());
        assertTrue(host.out().contains("rdma_client: end -2"), host.out());
        final Cli.Result port = Cli.run("rdma_server", "-p", "http-alt", "--link", "memory");
        assertEquals(248, port.exitCode(), port.out() + port.err());
        assertTrue(port.out().contains("[server] rdma_getaddrinfo: Servname not supported for ai_socktype"),
            port.out());
        assertTrue(port.out().contains("[server] rdma_server: end -8"), port.out());
    }

    @Test
    void badOptionsPrintTheUsageAndExit1()
    {
        for (final String command : List.of("rdma_server", "rdma_client"))
        {
            final Cli.Result result = Cli.run(command, "-x");
            assertEquals(RdmaEpCommand.EXIT_USAGE, result.exitCode(), command);
        }
        final Cli.Result timeout = Cli.run("rdma_client", "--timeout", "-1");
        assertEquals(RdmaEpCommand.EXIT_USAGE, timeout.exitCode());
        assertTrue(timeout.out().contains("\t[-p port_number]"), timeout.out());
    }
}
