package org.roce4j.ib;

/**
 * Send work request flags (enum ibv_send_flags), same values as libibverbs, combined with bitwise or.
 */
public final class SendFlags
{
    /** IBV_SEND_FENCE: start only after every earlier RDMA READ and atomic of this QP completed (IBA 10.8.3.3). */
    public static final int FENCE = 1;
    /** IBV_SEND_SIGNALED: generate a completion on success (errors always complete). */
    public static final int SIGNALED = 1 << 1;
    /** IBV_SEND_SOLICITED: set the Solicited Event bit on the last packet (SEND and RDMA WRITE with immediate). */
    public static final int SOLICITED = 1 << 2;
    /** IBV_SEND_INLINE: copy the payload into the WR at post time; the buffer may be reused at once. */
    public static final int INLINE = 1 << 3;
    /** Every flag above. */
    public static final int ALL = FENCE | SIGNALED | SOLICITED | INLINE;

    private static final int[] BITS = {FENCE, SIGNALED, SOLICITED, INLINE};
    private static final String[] NAMES = {"FENCE", "SIGNALED", "SOLICITED", "INLINE"};

    private SendFlags()
    {
    }

    /**
     * @param flags a combination.
     * @return e.g. "SIGNALED|INLINE" or "none".
     */
    public static String toString(final int flags)
    {
        return FlagNames.toString(flags, BITS, NAMES);
    }
}
