package org.roce4j.cli;

import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.concurrent.Callable;

import org.roce4j.cli.rdmaep.RdmaEp;
import org.roce4j.cli.rdmaep.RdmaEpSettings;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * What {@code roce rdma_server} and {@code roce rdma_client} share: librdmacm's rdma_server.c / rdma_client.c options
 * ({@code -s}, {@code -p}), their usage text and exit status (run's return value as a byte: 0; 1 for bad options;
 * 254 when -s does not resolve (EAI_NONAME, -2); 248 for a -p that is no port (EAI_SERVICE, -8); 255 for a failed
 * call), one role on {@code --link}, or both in this process on {@code --link memory}.
 */
abstract class RdmaEpCommand implements Callable<Integer>, CmToolRunner.Tool<RdmaEpSettings>
{
    /** The examples' exit for bad options (usage, exit(1)). */
    static final int EXIT_USAGE = CmToolRunner.EXIT_USAGE;
    /** getaddrinfo's EAI_NONAME. */
    private static final int EAI_NONAME = -2;
    /** getaddrinfo's EAI_SERVICE: a service (port) it does not know. */
    private static final int EAI_SERVICE = -8;
    /** gai_strerror(EAI_SERVICE) for a stream socket. */
    private static final String EAI_SERVICE_TEXT = "Servname not supported for ai_socktype";

    @Spec
    private CommandSpec spec;

    @Option(names = "-s", paramLabel = "server_address", description = "the server's address (rdma_server: the " +
        "address to bind, default 0.0.0.0; rdma_client: the server, default 127.0.0.1)")
    private String serverAddress;

    @Option(names = "-p", paramLabel = "port_number", description = "port (default 7471)")
    private String port;

    @Mixin
    private LinkOption link;

    @Option(names = "--timeout", paramLabel = "ms", description = "give up a wait after this long (default 0: " +
        "wait as long as the example would)")
    private long timeoutMs;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help")
    private boolean help;

    /**
     * @return true for rdma_server, false for rdma_client.
     */
    abstract boolean server();

    /**
     * @return the example's exit status.
     */
    public Integer call()
    {
        return CmToolRunner.call(tool(), link, spec, this);
    }

    private String tool()
    {
        return server() ? "rdma_server" : "rdma_client";
    }

    /**
     * The options; a -s or -p that does not resolve is kept in the settings, for run to print (see
     * {@link #resolve}).
     *
     * @param out the example's stdout.
     * @param err the example's stderr.
     * @return the settings.
     */
    @Override
    public RdmaEpSettings settings(final PrintWriter out, final PrintWriter err)
    {
        if (timeoutMs < 0)
        {
            throw new IllegalArgumentException("--timeout must be >= 0 ms");
        }
        return resolve();
    }

    @Override
    public void usage(final PrintWriter out)
    {
        out.println("usage: " + tool());
        out.println("\t[-s server_address]");
        out.println("\t[-p port_number]");
        out.println("\t[--link SPEC]\troce4j: " + LinkOption.DESCRIPTION);
        out.flush();
    }

    /** Never called: {@link #settings} keeps an address that does not resolve for run to print. */
    @Override
    public void unresolved(final UnknownHostException ex, final PrintWriter out)
    {
    }

    @Override
    public CmToolRunner.Role role(final RdmaEpSettings settings)
    {
        return (cm, o, e, listening) -> new RdmaEp(cm, settings, o, e).run();
    }

    /** In process ({@link CmToolRunner#inProcess}): the server binds what -s says (or any address). */
    @Override
    public CmToolRunner.Role server(final RdmaEpSettings settings) throws UnknownHostException
    {
        final InetAddress any = InetAddress.getByName(RdmaEpSettings.DEFAULT_SERVER_BIND);
        return (cm, o, e, listening) -> new RdmaEp(cm, settings.role(true, server() ? settings.address() : any), o,
            e).onListening(listening).run();
    }

    /** In process: the client reaches the server's port of the in-memory fabric unless -s names another address. */
    @Override
    public CmToolRunner.Role client(final RdmaEpSettings settings) throws UnknownHostException
    {
        final InetAddress serverIp = null != serverAddress && null != settings.address() &&
            !settings.address().isAnyLocalAddress() ? settings.address() :
            InetAddress.getByName(InProcessPorts.SERVER_IP);
        return (cm, o, e, listening) -> new RdmaEp(cm, settings.role(false, serverIp), o, e).run();
    }

    /** rdma_getaddrinfo(server, port): its failure is printed by run, after "NAME: start", as the examples do. */
    private RdmaEpSettings resolve()
    {
        final String host = null != serverAddress ? serverAddress :
            server() ? RdmaEpSettings.DEFAULT_SERVER_BIND : RdmaEpSettings.DEFAULT_CLIENT_SERVER;
        int portNumber = RdmaEpSettings.DEFAULT_PORT;
        if (null != port)
        {
            try
            {
                portNumber = Integer.parseInt(port.trim());
            }
            catch (final NumberFormatException ex)
            {
                portNumber = -1;
            }
            if (portNumber < 0 || portNumber > 65535)
            {
                return new RdmaEpSettings(server(), null, -1, EAI_SERVICE_TEXT, EAI_SERVICE, timeoutMs);
            }
        }
        try
        {
            return new RdmaEpSettings(server(), HostNames.resolve(host), portNumber, null, 0, timeoutMs);
        }
        catch (final UnknownHostException ex)
        {
            return new RdmaEpSettings(server(), null, portNumber, HostNames.gaiText(ex), EAI_NONAME, timeoutMs);
        }
    }
}
