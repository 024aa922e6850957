package org.roce4j.interop;

/**
 * Which GID each side of an interop case uses ({@code -g}/{@code -x} on both tools), and the addresses roce4j's link
 * needs beyond the IPv4 one every tunnel link has. roce4j's GID table follows rxe's order (index 0 the link-local
 * {@code fe80::/64} GID from the MAC, then one IPv4-mapped GID per IPv4 address, then each global IPv6 address), so
 * a tunnel link given {@code ip=10.77.0.1,ip=fd00:77::1} has 0 link-local, 1 IPv4, 2 {@code fd00:77::1}.
 *
 * @param label         for case names and messages, e.g. {@code IPv6 link-local}.
 * @param roceGidIndex  roce4j's GID index.
 * @param guestGidIndex rxe's GID index in the guest.
 * @param linkOptions   options appended to roce4j's link spec, e.g. {@code ,ip=fd00:77::1}, or empty.
 */
record GidChoice(String label, int roceGidIndex, int guestGidIndex, String linkOptions)
{
    /** roce4j's IPv4-mapped GID on a tunnel link with one IPv4 address (after the link-local GID 0). */
    static final int ROCE_IPV4_GID_INDEX = 1;

    /**
     * @param peer a ready peer.
     * @return IPv4-mapped GIDs on both sides: what every interop case uses unless it says otherwise.
     */
    static GidChoice ipv4(final RxePeer peer)
    {
        return new GidChoice("IPv4", ROCE_IPV4_GID_INDEX, peer.ready().ipv4GidIndex(), "");
    }

    /**
     * @return e.g. {@code IPv6 global (roce4j GID 2, rxe GID 2)}.
     */
    @Override
    public String toString()
    {
        return label + " (roce4j GID " + roceGidIndex + ", rxe GID " + guestGidIndex + ")";
    }
}
