package org.roce4j.ib;

/**
 * Queue sizes of a QP (struct ibv_qp_cap).
 */
public final class QpCapabilities
{
    /** max_send_wr. */
    public int maxSendWr = 128;
    /** max_recv_wr. */
    public int maxRecvWr = 128;
    /** max_send_sge. */
    public int maxSendSge = 1;
    /** max_recv_sge. */
    public int maxRecvSge = 1;
    /** max_inline_data. */
    public int maxInlineData;

    /**
     * @param other to copy.
     * @return this.
     */
    public QpCapabilities copyFrom(final QpCapabilities other)
    {
        maxSendWr = other.maxSendWr;
        maxRecvWr = other.maxRecvWr;
        maxSendSge = other.maxSendSge;
        maxRecvSge = other.maxRecvSge;
        maxInlineData = other.maxInlineData;
        return this;
    }

    /**
     * @return e.g. {@code cap{send_wr=128 recv_wr=128 send_sge=1 recv_sge=1 inline=0}}.
     */
    public String toString()
    {
        return "cap{send_wr=" + maxSendWr + " recv_wr=" + maxRecvWr + " send_sge=" + maxSendSge + " recv_sge=" +
            maxRecvSge + " inline=" + maxInlineData + "}";
    }
}
