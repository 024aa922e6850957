package org.roce4j.cli.pingpong;

import org.roce4j.cm.oob.PingpongExchange;
import org.roce4j.ib.Mtu;
import org.roce4j.ib.QpType;

/**
 * The settings of one pingpong run, with ibv_rc_pingpong's defaults (rdma-core libibverbs/examples).
 */
public final class PingpongSettings
{
    /** Page size the examples' -c check uses (sysconf(_SC_PAGESIZE) on x86-64 Linux). */
    public static final int PAGE_SIZE = 4096;
    /** Default message size of ibv_rc_pingpong and ibv_uc_pingpong. */
    public static final int DEFAULT_SIZE = 4096;
    /** Default message size of ibv_ud_pingpong (its code; its help text says 2048). */
    public static final int DEFAULT_UD_SIZE = 1024;

    QpType transport = QpType.RC;
    String server;
    int port = PingpongExchange.DEFAULT_PORT;
    int size = -1;
    Mtu mtu = Mtu.MTU_1024;
    int rxDepth = 500;
    int iterations = 1000;
    int serviceLevel;
    int trafficClass;
    boolean events;
    int gidIndex = -1;
    boolean validate;
    long timeoutMs = 30_000;
    int srqQps;

    /**
     * @return the message size: -s, or the transport's default.
     */
    public int size()
    {
        return size >= 0 ? size : (transport.isDatagram() ? DEFAULT_UD_SIZE : DEFAULT_SIZE);
    }

    /**
     * @return an independent copy.
     */
    public PingpongSettings copy()
    {
        final PingpongSettings copy = new PingpongSettings();
        copy.transport = transport;
        copy.server = server;
        copy.port = port;
        copy.size = size;
        copy.mtu = mtu;
        copy.rxDepth = rxDepth;
        copy.iterations = iterations;
        copy.serviceLevel = serviceLevel;
        copy.trafficClass = trafficClass;
        copy.events = events;
        copy.gidIndex = gidIndex;
        copy.validate = validate;
        copy.timeoutMs = timeoutMs;
        copy.srqQps = srqQps;
        return copy;
    }

    /**
     * @return the transport.
     */
    public QpType transport()
    {
        return transport;
    }

    /**
     * @return the QPs of ibv_srq_pingpong's run (its -q), 0 for ibv_rc/uc/ud_pingpong.
     */
    public int srqQps()
    {
        return srqQps;
    }

    /**
     * @return the timeout in milliseconds.
     */
    public long timeoutMsValue()
    {
        return timeoutMs;
    }

    /**
     * @param transport RC, UC or UD.
     * @return this.
     */
    public PingpongSettings transport(final QpType transport)
    {
        this.transport = transport;
        return this;
    }

    /**
     * @param qps 0 for ibv_rc/uc/ud_pingpong, else ibv_srq_pingpong with this many RC QPs sharing one SRQ (its -q).
     * @return this.
     */
    public PingpongSettings srqQps(final int qps)
    {
        this.srqQps = qps;
        return this;
    }

    /**
     * @param server host to connect to, or null to be the server.
     * @return this.
     */
    public PingpongSettings server(final String server)
    {
        this.server = server;
        return this;
    }

    /**
     * @param port TCP port of the out-of-band exchange.
     * @return this.
     */
    public PingpongSettings port(final int port)
    {
        this.port = port;
        return this;
    }

    /**
     * @param size message size in bytes.
     * @return this.
     */
    public PingpongSettings size(final int size)
    {
        this.size = size;
        return this;
    }

    /**
     * @param mtu path MTU.
     * @return this.
     */
    public PingpongSettings mtu(final Mtu mtu)
    {
        this.mtu = mtu;
        return this;
    }

    /**
     * @param depth receives kept posted.
     * @return this.
     */
    public PingpongSettings rxDepth(final int depth)
    {
        this.rxDepth = depth;
        return this;
    }

    /**
     * @param iterations exchanges.
     * @return this.
     */
    public PingpongSettings iterations(final int iterations)
    {
        this.iterations = iterations;
        return this;
    }

    /**
     * @param serviceLevel SL.
     * @return this.
     */
    public PingpongSettings serviceLevel(final int serviceLevel)
    {
        this.serviceLevel = serviceLevel;
        return this;
    }

    /**
     * @param trafficClass IPv4 TOS / IPv6 traffic class of the QP's packets, 0..255 (--tclass).
     * @return this.
     */
    public PingpongSettings trafficClass(final int trafficClass)
    {
        this.trafficClass = trafficClass;
        return this;
    }

    /**
     * @param events wait for completions by blocking instead of busy polling.
     * @return this.
     */
    public PingpongSettings events(final boolean events)
    {
        this.events = events;
        return this;
    }

    /**
     * @param index local GID index, -1 for none.
     * @return this.
     */
    public PingpongSettings gidIndex(final int index)
    {
        this.gidIndex = index;
        return this;
    }

    /**
     * @param validate -c: mark page starts and check them.
     * @return this.
     */
    public PingpongSettings validate(final boolean validate)
    {
        this.validate = validate;
        return this;
    }

    /**
     * @param timeoutMs the longest wait for the peer, in the exchange or without a completion.
     * @return this.
     */
    public PingpongSettings timeoutMs(final long timeoutMs)
    {
        this.timeoutMs = timeoutMs;
        return this;
    }
}
