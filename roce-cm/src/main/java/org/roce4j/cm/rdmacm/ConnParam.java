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

    /**
     * rdma_connect's limit: the REQ's (or SIDR_REQ's) private data less rdma_cm's 36-byte header.
     *
     * @throws IllegalArgumentException when the private data is longer.
     */
    static void checkConnect(final ConnParam param, final boolean ud)
    {
        final int maxPrivateData = ud ? MAX_UD_CONNECT_PRIVATE_DATA : MAX_CONNECT_PRIVATE_DATA;
        if (param.privateData().length > maxPrivateData)
        {
            throw new IllegalArgumentException("connect private data holds at most " + maxPrivateData + " bytes (" +
                (ud ? 216 : 92) + " in the " + (ud ? "SIDR_REQ" : "REQ") + " minus rdma_cm's 36-byte " +
                "header), got " + param.privateData().length);
        }
    }

    /**
     * rdma_accept's and rdma_reject's limit: the REP's or REJ's private data, or the SIDR_REP's in the UDP port space.
     *
     * @param privateData the private data, or null.
     * @param verb        "accept" or "reject", for the message.
     * @param rcMax       the limit in the TCP port space.
     * @throws IllegalArgumentException when the private data is longer.
     */
    static void checkAccept(final byte[] privateData, final boolean ud, final String verb, final int rcMax)
    {
        final int maxPrivateData = ud ? MAX_UD_ACCEPT_PRIVATE_DATA : rcMax;
        if (null != privateData && privateData.length > maxPrivateData)
        {
            throw new IllegalArgumentException(verb + " private data holds at most " + maxPrivateData + " bytes, got " +
                privateData.length);
        }
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
