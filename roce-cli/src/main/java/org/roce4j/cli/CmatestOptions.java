package org.roce4j.cli;

import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Locale;

import picocli.CommandLine.Option;

/**
 * The options udaddy.c and cmatose.c share (both keep their test in a {@code struct cmatest}): {@code -s}, {@code -b},
 * {@code -f}, {@code -c}, {@code -C}, {@code -S}, {@code -t}, and roce4j's {@code --timeout}; checked as the tools
 * check them, with AF_IB ({@code -f gid}) refused.
 */
public final class CmatestOptions
{
    /** The tools' default -c. */
    static final int DEFAULT_CONNECTIONS = 1;
    /** The tools' default -C. */
    static final int DEFAULT_MESSAGE_COUNT = 10;
    /** The tools' default -S. */
    static final int DEFAULT_MESSAGE_SIZE = 100;

    @Option(names = "-s", paramLabel = "server_address", description = "the server's address: run the client")
    private String serverAddress;

    @Option(names = "-b", paramLabel = "bind_address", description = "address to bind (must be the link's)")
    private String bindAddress;

    @Option(names = "-f", paramLabel = "address_format", description = "name, ip, ipv6 (gid is not supported)")
    private String addressFormat;

    @Option(names = "-c", paramLabel = "connections", description = "connections (default 1)")
    private int connections = DEFAULT_CONNECTIONS;

    @Option(names = "-C", paramLabel = "message_count", description = "messages each way (default 10)")
    private int messageCount = DEFAULT_MESSAGE_COUNT;

    @Option(names = "-S", paramLabel = "message_size", description = "message size (default 100; udaddy: at most " +
        "the active MTU)")
    private int messageSize = DEFAULT_MESSAGE_SIZE;

    @Option(names = "-t", paramLabel = "type_of_service", description = "type of service (0..255, e.g. 0x20)")
    private String tos;

    @Option(names = "--timeout", paramLabel = "ms", description = "give up a wait after this long (default 0: " +
        "wait as long as the tool would)")
    private long timeoutMs;

    /**
     * Check -f, -c, -C, -S and --timeout as the tools read them.
     *
     * @param err where the tools' warnings go ("Warning: unknown address format").
     * @throws IllegalArgumentException for -f gid, no connection, a negative count, size or timeout.
     */
    void check(final PrintWriter err)
    {
        if (null != addressFormat)
        {
            final String format = addressFormat.toLowerCase(Locale.ROOT);
            if (format.startsWith("gid"))
            {
                throw new IllegalArgumentException("-f gid (AF_IB addresses) is not supported");
            }
            if (!format.startsWith("ip") && !format.startsWith("name"))
            {
                err.println("Warning: unknown address format");
            }
        }
        if (connections < 1)
        {
            throw new IllegalArgumentException("-c " + connections + ": at least one connection");
        }
        if (messageCount < 0 || messageSize < 0)
        {
            throw new IllegalArgumentException("-C and -S must be >= 0");
        }
        if (timeoutMs < 0)
        {
            throw new IllegalArgumentException("--timeout must be >= 0 ms");
        }
    }

    /**
     * @return true without -s: the server role.
     */
    boolean server()
    {
        return null == serverAddress;
    }

    /**
     * @return -s resolved, or null for the server.
     * @throws UnknownHostException when it does not resolve.
     */
    InetAddress destination() throws UnknownHostException
    {
        return null == serverAddress ? null : HostNames.resolve(serverAddress);
    }

    /**
     * @return -b resolved, or null.
     * @throws UnknownHostException when it does not resolve.
     */
    InetAddress bind() throws UnknownHostException
    {
        return null == bindAddress ? null : HostNames.resolve(bindAddress);
    }

    /**
     * @return -t as strtoul(optarg, NULL, 0) cast to uint8_t, or -1 when not given.
     */
    int tos()
    {
        return null == tos ? -1 : CmToolRunner.strtol("-t", tos) & 0xFF;
    }

    /**
     * @return -c.
     */
    int connections()
    {
        return connections;
    }

    /**
     * @return -C.
     */
    int messageCount()
    {
        return messageCount;
    }

    /**
     * @return -S.
     */
    int messageSize()
    {
        return messageSize;
    }

    /**
     * @return --timeout in ms (0: forever).
     */
    long timeoutMs()
    {
        return timeoutMs;
    }
}
