package org.roce4j.ib;

/**
 * The text of a flag word, for the flag classes' {@code toString}: the names of the known bits that are set, joined
 * with '|', then any unknown bits in hex; "none" for 0.
 */
final class FlagNames
{
    private FlagNames()
    {
    }

    /**
     * @param flags a combination.
     * @param bits  the known bits, in the order to print them.
     * @param names their names, index for index.
     * @return e.g. "LOCAL_WRITE|REMOTE_READ", "SIGNALED|0x40" or "none".
     */
    static String toString(final int flags, final int[] bits, final String[] names)
    {
        final StringBuilder sb = new StringBuilder();
        int known = 0;
        for (int i = 0; i < bits.length; i++)
        {
            known |= bits[i];
            if (0 != (flags & bits[i]))
            {
                append(sb, names[i]);
            }
        }
        final int unknown = flags & ~known;
        if (0 != unknown)
        {
            append(sb, "0x" + Integer.toHexString(unknown));
        }
        return 0 == sb.length() ? "none" : sb.toString();
    }

    private static void append(final StringBuilder sb, final String name)
    {
        if (sb.length() > 0)
        {
            sb.append('|');
        }
        sb.append(name);
    }
}
