package org.roce4j.transport;

/**
 * Memory region and QP access flags (enum ibv_access_flags), combined with bitwise or.
 */
public final class AccessFlags
{
    /** IBV_ACCESS_LOCAL_WRITE: the HCA may write the memory (receive buffers, READ targets, atomic results). */
    public static final int LOCAL_WRITE = 1;
    /** IBV_ACCESS_REMOTE_WRITE: peers may RDMA WRITE it (needs LOCAL_WRITE). */
    public static final int REMOTE_WRITE = 1 << 1;
    /** IBV_ACCESS_REMOTE_READ: peers may RDMA READ it. */
    public static final int REMOTE_READ = 1 << 2;
    /** IBV_ACCESS_REMOTE_ATOMIC: peers may run atomics on it (needs LOCAL_WRITE). */
    public static final int REMOTE_ATOMIC = 1 << 3;
    /** All flags roce4j implements. */
    public static final int ALL = LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ | REMOTE_ATOMIC;

    private AccessFlags()
    {
    }

    /**
     * @param flags a combination.
     * @return e.g. "LOCAL_WRITE|REMOTE_READ" or "none".
     */
    public static String toString(final int flags)
    {
        final StringBuilder sb = new StringBuilder();
        append(sb, flags, LOCAL_WRITE, "LOCAL_WRITE");
        append(sb, flags, REMOTE_WRITE, "REMOTE_WRITE");
        append(sb, flags, REMOTE_READ, "REMOTE_READ");
        append(sb, flags, REMOTE_ATOMIC, "REMOTE_ATOMIC");
        if (0 != (flags & ~ALL))
        {
            append(sb, flags, flags & ~ALL, "0x" + Integer.toHexString(flags & ~ALL));
        }
        return sb.length() == 0 ? "none" : sb.toString();
    }

    private static void append(final StringBuilder sb, final int flags, final int flag, final String name)
    {
        if (0 != (flags & flag))
        {
            if (sb.length() > 0)
            {
                sb.append('|');
            }
            sb.append(name);
        }
    }
}
