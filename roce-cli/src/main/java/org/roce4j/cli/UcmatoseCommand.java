package org.roce4j.cli;

import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.concurrent.Callable;

import org.roce4j.cli.ucmatose.Ucmatose;
import org.roce4j.cli.ucmatose.UcmatoseSettings;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code roce ucmatose}: rdma-core's ucmatose (librdmacm/examples/cmatose.c) on roce4j: RC connections through
 * rdma_cm, SENDs from the server to the client and back, a disconnect, with cmatose's options, output lines and exit
 * status (its return status as a byte: 0; 1 for bad options; 254 when an address does not resolve (EAI_NONAME,
 * -2); the event status of a failed connection, e.g. 8 when nobody listens (REJ reason 8), 28 for a rejection, 146
 * for -ETIMEDOUT; 244 (-ENOMEM) when more connections come than -c; 255 for a failed call).
 */
@Command(
    name = "ucmatose",
    exitCodeOnInvalidInput = UcmatoseCommand.EXIT_USAGE,
    exitCodeOnExecutionException = CmToolRunner.EXIT_FAILED,
    description = {
        "RC connections through rdma_cm, like rdma-core's ucmatose (cmatose.c): without -s a server on port 7471, " +
            "with -s a client that makes -c connections to it; the server sends -C messages of -S bytes on each, " +
            "the client replies with as many, then the server disconnects.",
        "With --link memory (the default) the client and the server both run in this process.",
        "Exit codes as cmatose's return status: 0; 1 bad options; 254 an address that does not resolve; the failed " +
            "event's status (8 nobody listens, 28 rejected, 146 timed out); 244 more requests than -c; 255 a " +
            "failed call."})
public final class UcmatoseCommand implements Callable<Integer>, CmToolRunner.Tool<UcmatoseSettings>
{
    /** cmatose's exit for bad options (usage, exit(1)). */
    static final int EXIT_USAGE = CmToolRunner.EXIT_USAGE;
    /** getaddrinfo's EAI_NONAME (-2) as an exit status. */
    static final int EXIT_EAI_NONAME = CmToolRunner.EXIT_EAI_NONAME;

    @Spec
    private CommandSpec spec;

    @Option(names = "-P", paramLabel = "port_space", description = "tcp (ib is not supported)")
    private String portSpaceName;

    @Option(names = "-p", paramLabel = "port_number", description = "port (default 7471)")
    private String port;

    @Option(names = "-m", description = "migrate to a new event channel (not supported: a roce4j RdmaCm has one)")
    private boolean migrate;

    @Option(names = "-a", paramLabel = "ack_timeout", description = "ACK timeout option (roce4j's rdma_cm has " +
        "none: reported as a failed rdma_set_option, as cmatose does, and the run goes on)")
    private String ackTimeout;

    @Mixin
    private CmatestOptions test;

    @Mixin
    private LinkOption link;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help")
    private boolean help;

    /**
     * @return cmatose's exit status.
     */
    public Integer call()
    {
        return CmToolRunner.call("ucmatose", link, spec, this);
    }

    @Override
    public void unresolved(final UnknownHostException ex, final PrintWriter out)
    {
        // rdma-core 44's run_client / run_server print this on stdout.
        out.println(test.server() ? "cmatose: starting server" : "cmatose: starting client");
        out.println("cmatose: " + (test.server() ? "getrdmaaddr" : "getaddrinfo") + " error: " +
            HostNames.gaiText(ex));
    }

    @Override
    public CmToolRunner.Role role(final UcmatoseSettings settings)
    {
        return (cm, o, e, listening) -> new Ucmatose(cm, settings, o, e).run();
    }

    /** In process ({@link CmToolRunner#inProcess}): the server binds any address. */
    @Override
    public CmToolRunner.Role server(final UcmatoseSettings settings)
    {
        return (cm, o, e, listening) -> new Ucmatose(cm, settings.role(true, null, null), o, e)
            .onListening(listening).run();
    }

    /** In process: the client reaches -s, or the server's port of the in-memory fabric. */
    @Override
    public CmToolRunner.Role client(final UcmatoseSettings settings) throws UnknownHostException
    {
        final InetAddress serverIp = null != settings.destination() ? settings.destination() :
            HostNames.resolve(InProcessPorts.SERVER_IP);
        return (cm, o, e, listening) -> new Ucmatose(cm, settings.role(false, serverIp, null), o, e).run();
    }

    @Override
    public UcmatoseSettings settings(final PrintWriter out, final PrintWriter err) throws UnknownHostException
    {
        if (migrate)
        {
            throw new IllegalArgumentException("-m (rdma_migrate_id to a new event channel) is not supported: a " +
                "roce4j RdmaCm has one event channel");
        }
        if (null != portSpaceName)
        {
            if (portSpaceName.toLowerCase(Locale.ROOT).startsWith("ib"))
            {
                throw new IllegalArgumentException("-P ib (RDMA_PS_IB) is not supported: roce4j's rdma_cm has the " +
                    "TCP and UDP port spaces");
            }
            if (!portSpaceName.toLowerCase(Locale.ROOT).startsWith("tcp"))
            {
                err.println("Warning: unknown port space format");
            }
        }
        final int portNumber = null == port ? UcmatoseSettings.DEFAULT_PORT : CmToolRunner.strtol("-p", port);
        if (portNumber < 1 || portNumber > 65535)
        {
            throw new IllegalArgumentException("-p " + port + ": a port is 1..65535");
        }
        final int ack = null == ackTimeout ? -1 : CmToolRunner.strtol("-a", ackTimeout) & 0xFF;
        test.check(err);
        return new UcmatoseSettings(test.server(), test.destination(), test.bind(), portNumber, test.connections(),
            test.messageCount(), test.messageSize(), test.tos(), ack, test.timeoutMs());
    }

    @Override
    public void usage(final PrintWriter out)
    {
        out.println("usage: ucmatose");
        out.println("\t[-s server_address]");
        out.println("\t[-b bind_address]");
        out.println("\t[-f address_format]");
        out.println("\t    name, ip, ipv6, or gid");
        out.println("\t[-P port_space]");
        out.println("\t    tcp or ib");
        out.println("\t[-c connections]");
        out.println("\t[-C message_count]");
        out.println("\t[-S message_size]");
        out.println("\t[-t type_of_service]");
        out.println("\t[-p port_number]");
        out.println("\t[-m(igrate)]");
        out.println("\t[-a ack_timeout]");
        out.println("\t[--link SPEC]\troce4j: " + LinkOption.DESCRIPTION);
        out.flush();
    }
}
