package org.roce4j.cm.ib;

import org.roce4j.wire.mad.CmReqMessage;

/**
 * What an active side puts in a REQ besides what the CM fills itself (communication ID, CA GUID, CM timeouts and
 * retries from {@link CmConfig}): the service, the QP and its starting PSN, RDMA READ/atomic depths, transport retry
 * counts, the path and the private data. Defaults are rdma_cm's for an RC connection over RoCE.
 */
public final class CmRequestParams
{
    /** Hop limit rdma_cm puts in RoCE paths (and IP TTL of the connection's packets). */
    public static final int DEFAULT_HOP_LIMIT = 64;

    long serviceId;
    int localQpn;
    int startingPsn;
    int pathMtu = 3;
    int responderResources;
    int initiatorDepth;
    int retryCount = 7;
    int rnrRetryCount = 7;
    int transportType = CmReqMessage.TRANSPORT_RC;
    long localGidHigh;
    long localGidLow;
    long remoteGidHigh;
    long remoteGidLow;
    int flowLabel;
    int trafficClass;
    int hopLimit = DEFAULT_HOP_LIMIT;
    byte[] privateData = new byte[0];

    /**
     * @param serviceId e.g. {@code 0x0000000001060000 | port} for rdma_cm's TCP port space.
     * @return this.
     */
    public CmRequestParams serviceId(final long serviceId)
    {
        this.serviceId = serviceId;
        return this;
    }

    /**
     * @param qpn the local QP number, 24 bits.
     * @return this.
     */
    public CmRequestParams localQpn(final int qpn)
    {
        this.localQpn = qpn & 0xFF_FFFF;
        return this;
    }

    /**
     * @param psn the REQ's Starting PSN, 24 bits: in Linux the PSN the local QP expects first (its rq_psn).
     * @return this.
     */
    public CmRequestParams startingPsn(final int psn)
    {
        this.startingPsn = psn & 0xFF_FFFF;
        return this;
    }

    /**
     * @param code path MTU code 1..5 (enum ib_mtu: 1 = 256 ... 5 = 4096).
     * @return this.
     */
    public CmRequestParams pathMtu(final int code)
    {
        if (code < 1 || code > 5)
        {
            throw new IllegalArgumentException("path MTU code must be 1..5 (256..4096 bytes), got " + code);
        }
        this.pathMtu = code;
        return this;
    }

    /**
     * @param value RDMA READ / atomic requests this side accepts in flight, 0..255.
     * @return this.
     */
    public CmRequestParams responderResources(final int value)
    {
        this.responderResources = checkByte(value, "responder resources");
        return this;
    }

    /**
     * @param value RDMA READ / atomic requests this side issues in flight, 0..255.
     * @return this.
     */
    public CmRequestParams initiatorDepth(final int value)
    {
        this.initiatorDepth = checkByte(value, "initiator depth");
        return this;
    }

    /**
     * @param count transport retry count 0..7.
     * @return this.
     */
    public CmRequestParams retryCount(final int count)
    {
        this.retryCount = check3(count, "retry count");
        return this;
    }

    /**
     * @param count RNR retry count 0..7 (7: retry forever).
     * @return this.
     */
    public CmRequestParams rnrRetryCount(final int count)
    {
        this.rnrRetryCount = check3(count, "RNR retry count");
        return this;
    }

    /**
     * @param type {@link CmReqMessage#TRANSPORT_RC} or {@link CmReqMessage#TRANSPORT_UC}.
     * @return this.
     */
    public CmRequestParams transportType(final int type)
    {
        this.transportType = type;
        return this;
    }

    /**
     * @param high high 64 bits of this side's GID.
     * @param low  low 64 bits of this side's GID.
     * @return this.
     */
    public CmRequestParams localGid(final long high, final long low)
    {
        this.localGidHigh = high;
        this.localGidLow = low;
        return this;
    }

    /**
     * @param high high 64 bits of the peer's GID.
     * @param low  low 64 bits of the peer's GID.
     * @return this.
     */
    public CmRequestParams remoteGid(final long high, final long low)
    {
        this.remoteGidHigh = high;
        this.remoteGidLow = low;
        return this;
    }

    /**
     * @param label 20-bit flow label of the path (RoCEv2 hashes it into the UDP source port).
     * @return this.
     */
    public CmRequestParams flowLabel(final int label)
    {
        this.flowLabel = label & 0xF_FFFF;
        return this;
    }

    /**
     * @param value traffic class / TOS of the path.
     * @return this.
     */
    public CmRequestParams trafficClass(final int value)
    {
        this.trafficClass = checkByte(value, "traffic class");
        return this;
    }

    /**
     * @param value hop limit / TTL of the path.
     * @return this.
     */
    public CmRequestParams hopLimit(final int value)
    {
        this.hopLimit = checkByte(value, "hop limit");
        return this;
    }

    /**
     * @param data private data, at most 92 bytes (rdma_cm's 36-byte header included).
     * @return this.
     */
    public CmRequestParams privateData(final byte[] data)
    {
        if (data.length > CmReqMessage.PRIVATE_DATA_LENGTH)
        {
            throw new IllegalArgumentException("REQ private data holds at most " + CmReqMessage.PRIVATE_DATA_LENGTH +
                " bytes, got " + data.length);
        }
        this.privateData = data.clone();
        return this;
    }

    static int checkByte(final int value, final String what)
    {
        if (value < 0 || value > 255)
        {
            throw new IllegalArgumentException(what + " is an 8-bit field, 0..255; got " + value);
        }
        return value;
    }

    static int check3(final int value, final String what)
    {
        if (value < 0 || value > 7)
        {
            throw new IllegalArgumentException(what + " is a 3-bit field, 0..7; got " + value);
        }
        return value;
    }
}
