package org.roce4j.cm.ib;

import java.util.concurrent.TimeUnit;

/**
 * The CM's timing and retry settings. Defaults are what the rdma_cm of Linux 6.1 (the kernel of the rxe peer the
 * interop tests run) puts in its REQs and derives from them, so a roce4j node behaves on the wire like an rxe node:
 * <ul>
 *   <li>CM response timeout 20 (CMA_CM_RESPONSE_TIMEOUT): 4096 ms to answer a REQ or a REP;</li>
 *   <li>packet lifetime 18 (CMA_IBOE_PACKET_LIFETIME for RoCE): 1024 ms;</li>
 *   <li>REQ retransmitted every 2 x 1024 + 4096 = 6144 ms (cm.c: twice the packet lifetime plus the remote CM
 *   response timeout; the golden capture shows 6.24 s between rping's two REQs), at most 15 times
 *   (CMA_MAX_CM_RETRIES), so an unanswered connect fails after 16 x 6144 ms = 98 s;</li>
 *   <li>REP and DREQ retransmitted every remote CM response timeout (4096 ms for a Linux peer), up to the REQ's
 *   Max CM Retries;</li>
 *   <li>local ACK timeout of the connected QPs 19 (cm_ack_timeout(ack delay 15, packet lifetime 18)): 2.1 s;</li>
 *   <li>TimeWait 2048 ms (the ACK timeout 19 through cm_convert_to_ms);</li>
 *   <li>MRA service timeout 24 (CMA_CM_MRA_SETTING): "wait 65536 ms more".</li>
 * </ul>
 * CM timeouts are 5-bit codes meaning 4.096 µs x 2^code (IBA 12.7.2); like the kernel (cm_convert_to_ms) the CM
 * turns them into {@code 1 << max(code - 8, 0)} milliseconds.
 */
public final class CmConfig
{
    /** CM response timeout code rdma_cm sends in REQs (CMA_CM_RESPONSE_TIMEOUT in Linux 6.1): 4096 ms. */
    public static final int DEFAULT_CM_RESPONSE_TIMEOUT = 20;
    /** Packet lifetime code rdma_cm assumes on RoCE (CMA_IBOE_PACKET_LIFETIME in Linux 6.1): 1024 ms. */
    public static final int DEFAULT_PACKET_LIFETIME = 18;
    /** Max CM retries rdma_cm sends in REQs (CMA_MAX_CM_RETRIES). */
    public static final int DEFAULT_MAX_CM_RETRIES = 15;
    /** Service timeout of the MRAs rdma_cm sends (CMA_CM_MRA_SETTING without its delay flag): 65536 ms. */
    public static final int DEFAULT_MRA_SERVICE_TIMEOUT = 24;
    /** Local CA ACK delay of an rxe device (rxe_param.h RXE_LOCAL_CA_ACK_DELAY), sent as REP Target ACK Delay. */
    public static final int DEFAULT_CA_ACK_DELAY = 15;
    /**
     * High 32 bits of the transaction IDs this CM makes. The kernel uses its MAD agent's registration number (2 in
     * the golden captures); any value works, since CM messages are matched by communication IDs.
     */
    public static final int DEFAULT_HI_TID = 1;

    private int cmResponseTimeout = DEFAULT_CM_RESPONSE_TIMEOUT;
    private int packetLifetime = DEFAULT_PACKET_LIFETIME;
    private int maxCmRetries = DEFAULT_MAX_CM_RETRIES;
    private int mraServiceTimeout = DEFAULT_MRA_SERVICE_TIMEOUT;
    private int caAckDelay = DEFAULT_CA_ACK_DELAY;
    private int hiTid = DEFAULT_HI_TID;

    /**
     * @param code CM response timeout code 0..31 this CM advertises (how long it takes to answer).
     * @return this.
     */
    public CmConfig cmResponseTimeout(final int code)
    {
        this.cmResponseTimeout = checkCode(code, "CM response timeout");
        return this;
    }

    /**
     * @return CM response timeout code.
     */
    public int cmResponseTimeout()
    {
        return cmResponseTimeout;
    }

    /**
     * @param code packet lifetime code 0..31.
     * @return this.
     */
    public CmConfig packetLifetime(final int code)
    {
        this.packetLifetime = checkCode(code, "packet lifetime");
        return this;
    }

    /**
     * @return packet lifetime code.
     */
    public int packetLifetime()
    {
        return packetLifetime;
    }

    /**
     * @param retries 0..15 (a 4-bit REQ field): times a REQ, REP or DREQ is sent again.
     * @return this.
     */
    public CmConfig maxCmRetries(final int retries)
    {
        if (retries < 0 || retries > 15)
        {
            throw new IllegalArgumentException("max CM retries is a 4-bit field, 0..15; got " + retries);
        }
        this.maxCmRetries = retries;
        return this;
    }

    /**
     * @return max CM retries.
     */
    public int maxCmRetries()
    {
        return maxCmRetries;
    }

    /**
     * @param code service timeout code 0..31 sent in MRAs.
     * @return this.
     */
    public CmConfig mraServiceTimeout(final int code)
    {
        this.mraServiceTimeout = checkCode(code, "MRA service timeout");
        return this;
    }

    /**
     * @return MRA service timeout code.
     */
    public int mraServiceTimeout()
    {
        return mraServiceTimeout;
    }

    /**
     * @param code local CA ACK delay 0..31, sent as the REP's Target ACK Delay.
     * @return this.
     */
    public CmConfig caAckDelay(final int code)
    {
        this.caAckDelay = checkCode(code, "CA ACK delay");
        return this;
    }

    /**
     * @return local CA ACK delay code.
     */
    public int caAckDelay()
    {
        return caAckDelay;
    }

    /**
     * @param value high 32 bits of the transaction IDs this CM makes.
     * @return this.
     */
    public CmConfig hiTid(final int value)
    {
        this.hiTid = value;
        return this;
    }

    /**
     * @return high 32 bits of the transaction IDs.
     */
    public int hiTid()
    {
        return hiTid;
    }

    /**
     * @return the local ACK timeout code for connected QPs: cm_ack_timeout(CA ACK delay, packet lifetime).
     */
    public int ackTimeout()
    {
        return ackTimeout(caAckDelay, packetLifetime);
    }

    /**
     * How long the active side waits for a REP before sending the REQ again: twice the packet lifetime plus the
     * passive side's CM response timeout (cm.c ib_send_cm_req).
     *
     * @return nanoseconds.
     */
    public long reqTimeoutNs()
    {
        return TimeUnit.MILLISECONDS.toNanos(2 * timeoutMs(packetLifetime) + timeoutMs(cmResponseTimeout));
    }

    /**
     * @param ackTimeout the connection's local ACK timeout code.
     * @return how long a connection stays in TimeWait: the ACK timeout through cm_convert_to_ms (cm_enter_timewait).
     */
    public static long timewaitNs(final int ackTimeout)
    {
        return TimeUnit.MILLISECONDS.toNanos(timeoutMs(ackTimeout));
    }

    /**
     * A CM timeout code as the Linux CM rounds it (cm_convert_to_ms): {@code 1 << max(code - 8, 0)} ms, a close
     * upper bound of 4.096 µs x 2^code.
     *
     * @param code 5-bit timeout code.
     * @return milliseconds.
     */
    public static long timeoutMs(final int code)
    {
        return 1L << Math.max((code & 0x1F) - 8, 0);
    }

    /**
     * The QP local ACK timeout for a path (cm.c cm_ack_timeout): the packet lifetime plus one, raised to cover the
     * remote CA's ACK delay, at most 31.
     *
     * @param caAckDelay     the (remote) CA ACK delay code.
     * @param packetLifetime the path's packet lifetime code.
     * @return timeout code.
     */
    public static int ackTimeout(final int caAckDelay, final int packetLifetime)
    {
        int timeout = packetLifetime + 1;
        if (timeout >= caAckDelay)
        {
            timeout += caAckDelay >= timeout - 1 ? 1 : 0;
        }
        else
        {
            timeout = caAckDelay + (timeout >= caAckDelay - 1 ? 1 : 0);
        }
        return Math.min(31, timeout);
    }

    private static int checkCode(final int code, final String what)
    {
        if (code < 0 || code > 31)
        {
            throw new IllegalArgumentException(what + " is a 5-bit code, 0..31; got " + code);
        }
        return code;
    }

    /**
     * @return the settings and what they mean in milliseconds.
     */
    public String toString()
    {
        return "CmConfig{cmResponseTimeout=" + cmResponseTimeout + " (" + timeoutMs(cmResponseTimeout) + " ms)" +
            ", packetLifetime=" + packetLifetime + " (" + timeoutMs(packetLifetime) + " ms)" +
            ", reqTimeout=" + TimeUnit.NANOSECONDS.toMillis(reqTimeoutNs()) + " ms" +
            ", maxCmRetries=" + maxCmRetries + ", ackTimeout=" + ackTimeout() +
            ", timewait=" + timeoutMs(ackTimeout()) + " ms" +
            ", mraServiceTimeout=" + mraServiceTimeout + " (" + timeoutMs(mraServiceTimeout) + " ms)" +
            ", caAckDelay=" + caAckDelay + ", hiTid=" + hiTid + "}";
    }
}
