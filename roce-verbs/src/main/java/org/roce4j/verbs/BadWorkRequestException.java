package org.roce4j.verbs;

/**
 * A post_send or post_recv refused a work request chain. Nothing of the chain was queued (roce4j validates the
 * whole chain first; libibverbs would have posted the WRs before bad_wr). {@link #index()} is the position of the
 * offending WR in the chain, as ibv_post_send's bad_wr would point at it.
 */
public final class BadWorkRequestException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    private final int index;
    private final long wrId;

    /**
     * @param index   position of the bad WR in the chain (0 = the WR passed to post).
     * @param wrId    its wr_id.
     * @param problem what is wrong with it.
     */
    public BadWorkRequestException(final int index, final long wrId, final String problem)
    {
        super("WR #" + index + " (wr_id=" + wrId + ") of the chain: " + problem);
        this.index = index;
        this.wrId = wrId;
    }

    /**
     * @return position of the bad WR in the chain (0 = the first).
     */
    public int index()
    {
        return index;
    }

    /**
     * @return wr_id of the bad WR.
     */
    public long wrId()
    {
        return wrId;
    }
}
