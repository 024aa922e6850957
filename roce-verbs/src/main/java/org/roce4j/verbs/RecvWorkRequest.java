package org.roce4j.verbs;

/**
 * A receive work request (struct ibv_recv_wr): buffers an incoming SEND (or RDMA WRITE with immediate) completes
 * into. Mutable and reusable; chains are built with {@link WorkRequest#next(WorkRequest) next(RecvWorkRequest)}.
 */
public final class RecvWorkRequest extends WorkRequest<RecvWorkRequest>
{
    /**
     * A WR with room for {@link DeviceAttributes#MAX_SGE} SGEs.
     */
    public RecvWorkRequest()
    {
        this(DeviceAttributes.MAX_SGE);
    }

    /**
     * @param sgeCapacity most SGEs this object will carry.
     * @throws IllegalArgumentException when negative.
     */
    public RecvWorkRequest(final int sgeCapacity)
    {
        super(sgeCapacity);
    }

    /**
     * Clear every field.
     *
     * @return this.
     */
    public RecvWorkRequest reset()
    {
        resetCommon();
        return this;
    }

    /**
     * @return e.g. {@code recv_wr{wr_id=3 sge=1 len=4096}}.
     */
    public String toString()
    {
        return "recv_wr{wr_id=" + wrId() + " sge=" + numSge() + " len=" + totalLength() + "}";
    }

    @Override
    RecvWorkRequest self()
    {
        return this;
    }
}
