package org.roce4j.transport.link.tunnel;

/**
 * A small IPv4-to-MAC table for one {@link TunnelLink}, with the ARP resolution state of each entry (RFC 826 plus
 * the retry-and-give-up behaviour of RFC 1122 2.3.2.1). Fixed arrays, no allocation after construction; a
 * point-to-point tunnel needs one or two entries, so lookups are linear scans.
 *
 * <p>Entries learned from ARP never expire while the link is open (the guest behind a tunnel does not change its
 * MAC); a later ARP packet from the same IP overwrites the MAC. When the table is full, a new entry replaces a
 * resolved one in round-robin order, or an incomplete one if nothing else is left.
 *
 * <p>Single threaded, like the link.
 */
final class NeighbourTable
{
    /** Returned by {@link #lookup(int)} when the address has no resolved MAC. */
    static final long UNRESOLVED = -1L;

    private static final byte EMPTY = 0;
    private static final byte INCOMPLETE = 1;
    private static final byte REACHABLE = 2;

    private final int[] ips;
    private final long[] macs;
    private final byte[] states;
    private final long[] nextRequestNs;
    private final int[] requestsSent;
    private int victim;

    /**
     * @param capacity number of entries.
     */
    NeighbourTable(final int capacity)
    {
        ips = new int[capacity];
        macs = new long[capacity];
        states = new byte[capacity];
        nextRequestNs = new long[capacity];
        requestsSent = new int[capacity];
    }

    /**
     * @param ip IPv4 address.
     * @return the MAC, or {@link #UNRESOLVED}.
     */
    long lookup(final int ip)
    {
        final int slot = find(ip);
        return slot >= 0 && REACHABLE == states[slot] ? macs[slot] : UNRESOLVED;
    }

    /**
     * @param ip IPv4 address.
     * @return true while ARP requests for it are outstanding.
     */
    boolean isResolving(final int ip)
    {
        final int slot = find(ip);
        return slot >= 0 && INCOMPLETE == states[slot];
    }

    /**
     * Begin resolving an address that has no entry; the first request is due at once.
     *
     * @param ip    IPv4 address.
     * @param nowNs current time.
     */
    void startResolving(final int ip, final long nowNs)
    {
        int slot = find(ip);
        if (slot < 0)
        {
            slot = allocate();
        }
        ips[slot] = ip;
        macs[slot] = 0;
        states[slot] = INCOMPLETE;
        nextRequestNs[slot] = nowNs;
        requestsSent[slot] = 0;
    }

    /**
     * Record a mapping seen in an ARP packet.
     *
     * @param ip     sender IPv4 address.
     * @param mac    sender MAC.
     * @param create true to add the address when it has no entry (RFC 826: when the packet was for us).
     * @return true when the table changed from unresolved to resolved for this address.
     */
    boolean learn(final int ip, final long mac, final boolean create)
    {
        int slot = find(ip);
        if (slot < 0)
        {
            if (!create)
            {
                return false;
            }
            slot = allocate();
            ips[slot] = ip;
            states[slot] = EMPTY;
        }
        final boolean resolved = REACHABLE != states[slot];
        macs[slot] = mac;
        states[slot] = REACHABLE;
        return resolved;
    }

    /**
     * Find the next incomplete entry whose request is due.
     *
     * @param nowNs current time.
     * @return a slot, or -1.
     */
    int nextDue(final long nowNs)
    {
        for (int slot = 0; slot < states.length; slot++)
        {
            if (INCOMPLETE == states[slot] && nextRequestNs[slot] - nowNs <= 0)
            {
                return slot;
            }
        }
        return -1;
    }

    /**
     * @return true when some entry is waiting for an ARP reply.
     */
    boolean anyResolving()
    {
        for (final byte state : states)
        {
            if (INCOMPLETE == state)
            {
                return true;
            }
        }
        return false;
    }

    /**
     * @param slot from {@link #nextDue(long)}.
     * @return its IPv4 address.
     */
    int ipAt(final int slot)
    {
        return ips[slot];
    }

    /**
     * @param slot from {@link #nextDue(long)}.
     * @return requests sent for it so far.
     */
    int requestsSentAt(final int slot)
    {
        return requestsSent[slot];
    }

    /**
     * Note that a request went out and when the next one is due.
     *
     * @param slot          from {@link #nextDue(long)}.
     * @param nextRequestAt time of the next request (or of giving up).
     */
    void requestSent(final int slot, final long nextRequestAt)
    {
        requestsSent[slot]++;
        nextRequestNs[slot] = nextRequestAt;
    }

    /**
     * Give up on an incomplete entry.
     *
     * @param slot from {@link #nextDue(long)}.
     */
    void fail(final int slot)
    {
        states[slot] = EMPTY;
        ips[slot] = 0;
    }

    private int find(final int ip)
    {
        for (int slot = 0; slot < ips.length; slot++)
        {
            if (EMPTY != states[slot] && ips[slot] == ip)
            {
                return slot;
            }
        }
        return -1;
    }

    private int allocate()
    {
        for (int slot = 0; slot < states.length; slot++)
        {
            if (EMPTY == states[slot])
            {
                return slot;
            }
        }
        for (int i = 0; i < states.length; i++)
        {
            final int slot = (victim + i) % states.length;
            if (REACHABLE == states[slot])
            {
                victim = slot + 1;
                return slot;
            }
        }
        final int slot = victim % states.length;
        victim = slot + 1;
        return slot;
    }
}
