package org.roce4j.cli.rping;

import java.net.InetAddress;

/**
 * What one rping side does: role, address and port, ping count and size, printing, validation, debug lines.
 * Defaults are rping's (librdmacm/examples/rping.c main): port 7174, size 64, count 0 (forever).
 */
public final class RpingSettings
{
    /** rping's default port. */
    public static final int DEFAULT_PORT = 7174;
    /** rping's default size. */
    public static final int DEFAULT_SIZE = 64;
    /** RPING_MIN_BUFSIZE: sizeof("2147483647") + sizeof("rdma-ping-%d: "), 11 + 15. */
    public static final int MIN_SIZE = 26;
    /** RPING_BUFSIZE: 64 KiB; rping accepts sizes up to one less. */
    public static final int BUFSIZE = 64 * 1024;

    boolean server;
    InetAddress address;
    int port = DEFAULT_PORT;
    int count;
    int size = DEFAULT_SIZE;
    boolean verbose;
    boolean validate;
    boolean debug;
    long timeoutMs;
    int trafficClass = -1;

    /**
     * @param server true for -s, false for -c.
     * @return this.
     */
    public RpingSettings server(final boolean server)
    {
        this.server = server;
        return this;
    }

    /**
     * @return true for the server.
     */
    public boolean isServer()
    {
        return server;
    }

    /**
     * @param address -a: the server's address (client), the address to bind (server), or null for any (server).
     * @return this.
     */
    public RpingSettings address(final InetAddress address)
    {
        this.address = address;
        return this;
    }

    /**
     * @param port -p.
     * @return this.
     */
    public RpingSettings port(final int port)
    {
        this.port = port;
        return this;
    }

    /**
     * @param count -C: pings, 0 for forever.
     * @return this.
     */
    public RpingSettings count(final int count)
    {
        this.count = count;
        return this;
    }

    /**
     * @param size -S: bytes per ping.
     * @return this.
     */
    public RpingSettings size(final int size)
    {
        this.size = size;
        return this;
    }

    /**
     * @param verbose -v: print the ping data.
     * @return this.
     */
    public RpingSettings verbose(final boolean verbose)
    {
        this.verbose = verbose;
        return this;
    }

    /**
     * @param validate -V: the client checks the data it gets back.
     * @return this.
     */
    public RpingSettings validate(final boolean validate)
    {
        this.validate = validate;
        return this;
    }

    /**
     * @param debug -d: rping's debug lines.
     * @return this.
     */
    public RpingSettings debug(final boolean debug)
    {
        this.debug = debug;
        return this;
    }

    /**
     * @param timeoutMs give up any single wait after this long (0: wait as long as rping would, forever).
     * @return this.
     */
    public RpingSettings timeoutMs(final long timeoutMs)
    {
        this.timeoutMs = timeoutMs;
        return this;
    }

    /**
     * @param tclass the connection's IP type of service (--tclass, rdma_set_option RDMA_OPTION_ID_TOS), 0..255, or
     *               -1 to leave it unset (the REQ's 0).
     * @return this.
     */
    public RpingSettings trafficClass(final int tclass)
    {
        this.trafficClass = tclass;
        return this;
    }

    /**
     * @return a copy.
     */
    public RpingSettings copy()
    {
        return new RpingSettings().server(server).address(address).port(port).count(count).size(size)
            .verbose(verbose).validate(validate).debug(debug).timeoutMs(timeoutMs).trafficClass(trafficClass);
    }
}
