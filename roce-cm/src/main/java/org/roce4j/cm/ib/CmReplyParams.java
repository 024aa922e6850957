package org.roce4j.cm.ib;

import org.roce4j.wire.mad.CmRepMessage;

/**
 * What a passive side puts in its REP: its QP, starting PSN, RDMA READ/atomic depths, the RNR retry count the
 * active side's QP is to use, and private data.
 */
public final class CmReplyParams
{
    int localQpn;
    int startingPsn;
    int responderResources;
    int initiatorDepth;
    int rnrRetryCount = 7;
    byte[] privateData = new byte[0];

    /**
     * @param qpn the local QP number, 24 bits.
     * @return this.
     */
    public CmReplyParams localQpn(final int qpn)
    {
        this.localQpn = qpn & 0xFF_FFFF;
        return this;
    }

    /**
     * @param psn the REP's Starting PSN, 24 bits: in Linux the PSN the local QP expects first (its rq_psn).
     * @return this.
     */
    public CmReplyParams startingPsn(final int psn)
    {
        this.startingPsn = psn & 0xFF_FFFF;
        return this;
    }

    /**
     * @param value RDMA READ / atomic requests this side accepts in flight, 0..255.
     * @return this.
     */
    public CmReplyParams responderResources(final int value)
    {
        this.responderResources = CmRequestParams.checkByte(value, "responder resources");
        return this;
    }

    /**
     * @param value RDMA READ / atomic requests this side issues in flight, 0..255.
     * @return this.
     */
    public CmReplyParams initiatorDepth(final int value)
    {
        this.initiatorDepth = CmRequestParams.checkByte(value, "initiator depth");
        return this;
    }

    /**
     * @param count RNR retry count 0..7 for the active side's QP.
     * @return this.
     */
    public CmReplyParams rnrRetryCount(final int count)
    {
        this.rnrRetryCount = CmRequestParams.check3(count, "RNR retry count");
        return this;
    }

    /**
     * @param data private data, at most 196 bytes.
     * @return this.
     */
    public CmReplyParams privateData(final byte[] data)
    {
        if (data.length > CmRepMessage.PRIVATE_DATA_LENGTH)
        {
            throw new IllegalArgumentException("REP private data holds at most " + CmRepMessage.PRIVATE_DATA_LENGTH +
                " bytes, got " + data.length);
        }
        this.privateData = data.clone();
        return this;
    }
}
