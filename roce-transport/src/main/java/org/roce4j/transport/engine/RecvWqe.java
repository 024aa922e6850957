package org.roce4j.transport.engine;

/**
 * A receive work queue entry: the buffers a SEND (or RDMA WRITE with immediate) lands in.
 */
final class RecvWqe
{
    long wrId;
    final Sgl sgl;

    /**
     * @param maxSge SGE capacity.
     */
    RecvWqe(final int maxSge)
    {
        this.sgl = new Sgl(Math.max(1, maxSge));
    }

    /**
     * Reset before filling.
     *
     * @param wrId user's work request id.
     * @return this.
     */
    public RecvWqe reset(final long wrId)
    {
        this.wrId = wrId;
        sgl.clear();
        return this;
    }

    /**
     * @return the scatter list to fill.
     */
    public Sgl sgl()
    {
        return sgl;
    }

    /**
     * @return work request id.
     */
    public long wrId()
    {
        return wrId;
    }
}
