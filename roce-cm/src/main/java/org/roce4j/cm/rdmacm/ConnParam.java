package org.roce4j.cm.rdmacm;

/**
 * Connection parameters (struct rdma_conn_param): private data, RDMA READ/atomic depths and transport retry counts,
 * for {@link RdmaCmId#connect} and {@link RdmaCmId#accept}; an event carries the peer's view of them.
 */
public final class ConnParam
{
    /** Most bytes of user private data in a connect (92 in the REQ minus rdma_cm's 36-byte header). */
    public static final int MAX_CONNECT_PRIVATE_DATA = 56;
    /** Most bytes of user private data in a UD connect (216 in the SIDR_REQ minus rdma_cm's 36-byte header). */
    public static final int MAX_UD_CONNECT_PRIVATE_DATA = 180;
    /** Most bytes of private data in a UD accept (SIDR_REP). */
    public static final int MAX_UD_ACCEPT_PRIVATE_DATA = 136;
    /** Most bytes of private data in an accept (REP). */
    public static final int MAX_ACCEPT_PRIVATE_DATA = 196;
    /** Most bytes of private data in a reject (REJ). */
    public static final int MAX_REJECT_PRIVATE_DATA = 148;

    private byte[] privateData = new byte[0];
    private int responderResources = 1;
    private int initiatorDepth = 1;
    private int retryCount = 7;
    private int rnrRetryCount = 7;

    /**
     * @param data private data (copied).
     * @return this.
     */
    public ConnParam privateData(final byte[] data)
    {
        if (null == data)
        {
            throw new NullPointerException("private data must not be null (use an empty array)");
        }
        this.privateData = data.clone();
        return this;
    }

    /**
     * @return private data (a copy).
     */
    public byte[] privateData()
    {
        return privateData.clone();
    }

    /**
     * @param value RDMA READ / atomic requests this side accepts in flight (0..255; default 1 as rping).
     * @return this.
     */
    public ConnParam responderResources(final int value)
    {
        this.responderResources = range(value, 0, 255, "responder_resources");
        return this;
    }

    /**
     * @return responder resources.
     */
    public int responderResources()
    {
        return responderResources;
    }

    /**
     * @param value RDMA READ / atomic requests this side issues in flight (0..255; default 1 as rping).
     * @return this.
     */
    public ConnParam initiatorDepth(final int value)
    {
        this.initiatorDepth = range(value, 0, 255, "initiator_depth");
        return this;
    }

    /**
     * @return initiator depth.
     */
    public int initiatorDepth()
    {
        return initiatorDepth;
    }

    /**
     * @param value transport retry count 0..7 (default 7).
     * @return this.
     */
    public ConnParam retryCount(final int value)
    {
        this.retryCount = range(value, 0, 7, "retry_count");
        return this;
    }

    /**
     * @return transport retry count.
     */
    public int retryCount()
    {
        return retryCount;
    }

    /**
     * @param value RNR retry count 0..7 (7: forever; default 7).
     * @return this.
     */
    public ConnParam rnrRetryCount(final int value)
    {
        this.rnrRetryCount = range(value, 0, 7, "rnr_retry_count");
        return this;
    }

    /**
     * @return RNR retry count.
     */
    public int rnrRetryCount()
    {
        return rnrRetryCount;
    }

    private static int range(final int value, final int min, final int max, final String name)
    {
        if (value < min || value > max)
        {
            throw new IllegalArgumentException(name + " must be " + min + ".." + max + ", got " + value);
        }
        return value;
    }

    /**
     * @return e.g. {@code responder_resources=1 initiator_depth=1 retry_count=7 rnr_retry_count=7 private_data=0 B}.
     */
    public String toString()
    {
        return "responder_resources=" + responderResources + " initiator_depth=" + initiatorDepth +
            " retry_count=" + retryCount + " rnr_retry_count=" + rnrRetryCount + " private_data=" +
            privateData.length + " B";
    }
}
