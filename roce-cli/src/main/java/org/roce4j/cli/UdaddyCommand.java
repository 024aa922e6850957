package org.roce4j.cli;

import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.concurrent.Callable;

import org.roce4j.cli.udaddy.Udaddy;
import org.roce4j.cli.udaddy.UdaddySettings;
import org.roce4j.wire.mad.RdmaCmServiceId;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code roce udaddy}: rdma-core's udaddy (librdmacm/examples/udaddy.c) on roce4j: UD connections through rdma_cm's
 * UDP port space (SIDR_REQ / SIDR_REP), then messages from the client to the server and back, with udaddy's options,
 * output lines and exit status (its return status as a byte: 0; 1 for bad options; 254 when an address does not
 * resolve (EAI_NONAME, -2); the event status of a failed connection, e.g. 1 for "no such service"
 * (IB_SIDR_UNSUPPORTED), 2 for a rejection, 146 for -ETIMEDOUT; 234 for -EINVAL; 255 for a failed call).
 */
@Command(
    name = "udaddy",
    exitCodeOnInvalidInput = UdaddyCommand.EXIT_USAGE,
    exitCodeOnExecutionException = UdaddyCommand.EXIT_FAILED,
    description = {
        "UD through rdma_cm (SIDR), like rdma-core's udaddy: without -s a server on port 7174, with -s a client " +
            "that resolves -c UD connections to it and exchanges -C messages of -S bytes each way.",
        "With --link memory (the default) the client and the server both run in this process.",
        "Exit codes as udaddy's return status: 0; 1 bad options; 254 an address that does not resolve; the failed " +
            "event's status (1 no such service, 2 rejected, 146 timed out); 234 -EINVAL; 255 a failed call."})
public final class UdaddyCommand implements Callable<Integer>, CmToolRunner.Tool<UdaddySettings>
{
    /** udaddy's exit for bad options (usage, exit(1)). */
    static final int EXIT_USAGE = CmToolRunner.EXIT_USAGE;
    /** librdmacm's -1 as an exit status. */
    static final int EXIT_FAILED = CmToolRunner.EXIT_FAILED;
    /** getaddrinfo's EAI_NONAME (-2) as an exit status. */
    static final int EXIT_EAI_NONAME = CmToolRunner.EXIT_EAI_NONAME;

    @Spec
    private CommandSpec spec;

    @Option(names = "-P", paramLabel = "port_space", description = "udp (ipoib is not supported)")
    private String portSpaceName;

    @Option(names = "-p", paramLabel = "port_space", description = "port space: 0x111 for UDP (default), 0x2 " +
        "for IPoIB (not supported)")
    private String portSpaceNumber;

    @Mixin
    private CmatestOptions test;

    @Mixin
    private LinkOption link;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help")
    private boolean help;

    /**
     * @return udaddy's exit status.
     */
    public Integer call()
    {
        return CmToolRunner.call("udaddy", link, spec, this);
    }

    @Override
    public void unresolved(final UnknownHostException ex, final PrintWriter out)
    {
        // get_rdma_addr prints this on stdout.
        out.println("rdma_getaddrinfo error: " + HostNames.gaiText(ex));
    }

    @Override
    public UdaddySettings settings(final PrintWriter out, final PrintWriter err) throws UnknownHostException
    {
        int portSpace = UdaddySettings.DEFAULT_PORT_SPACE;
        if (null != portSpaceNumber)
        {
            portSpace = CmToolRunner.strtol("-p", portSpaceNumber);
        }
        if (null != portSpaceName)
        {
            if (portSpaceName.toLowerCase(Locale.ROOT).startsWith("ipoib"))
            {
                portSpace = RdmaCmServiceId.PS_IPOIB;
            }
            else if (!portSpaceName.toLowerCase(Locale.ROOT).startsWith("udp"))
            {
                err.println("Warning: unknown port space format");
            }
        }
        test.check(err);
        return new UdaddySettings(test.server(), test.destination(), test.bind(), UdaddySettings.DEFAULT_PORT,
            test.connections(), test.messageCount(), test.messageSize(), test.tos(), portSpace, test.timeoutMs());
    }

    @Override
    public CmToolRunner.Role role(final UdaddySettings settings)
    {
        return (cm, o, e, listening) -> new Udaddy(cm, settings, o, e).run();
    }

    /** In process ({@link CmToolRunner#inProcess}): the server binds any address. */
    @Override
    public CmToolRunner.Role server(final UdaddySettings settings)
    {
        return (cm, o, e, listening) -> new Udaddy(cm, settings.role(true, null).bindTo(null), o, e)
            .onListening(listening).run();
    }

    /** In process: the client reaches -s, or the server's port of the in-memory fabric. */
    @Override
    public CmToolRunner.Role client(final UdaddySettings settings) throws UnknownHostException
    {
        final InetAddress serverIp = null != settings.destination() ? settings.destination() :
            InetAddress.getByName(InProcessPorts.SERVER_IP);
        return (cm, o, e, listening) -> new Udaddy(cm, settings.role(false, serverIp).bindTo(null), o, e).run();
    }

    @Override
    public void usage(final PrintWriter out)
    {
        out.println("usage: udaddy");
        out.println("\t[-s server_address]");
        out.println("\t[-b bind_address]");
        out.println("\t[-f address_format]");
        out.println("\t    name, ip, ipv6, or gid");
        out.println("\t[-P port_space]");
        out.println("\t    udp or ipoib");
        out.println("\t[-c connections]");
        out.println("\t[-C message_count]");
        out.println("\t[-S message_size]");
        out.println("\t[-t type_of_service]");
        out.println("\t[-p port_space - 0x111 for UDP (default), 0x2 for IPOIB]");
        out.println("\t[--link SPEC]\troce4j: " + LinkOption.DESCRIPTION);
        out.flush();
    }
}
