package org.roce4j.interop;

import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

import org.roce4j.wire.addr.Gid;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Which GID each side of an interop case uses ({@code -g}/{@code -x} on both tools), and the addresses roce4j's link
 * needs beyond the IPv4 one every tunnel link has. roce4j's GID table follows rxe's order (index 0 the link-local
 * {@code fe80::/64} GID from the MAC, then one IPv4-mapped GID per IPv4 address, then each global IPv6 address), so
 * a tunnel link given {@code ip=10.77.0.1,ip=fd00:77::1} has 0 link-local, 1 IPv4, 2 {@code fd00:77::1}.
 *
 * @param label         for case names and messages, e.g. {@code IPv6 link-local}.
 * @param roceGidIndex  roce4j's GID index.
 * @param guestGidIndex rxe's GID index in the guest.
 * @param linkOptions   options appended to roce4j's tunnel link spec, e.g. {@code ,ip=fd00:77::1}, or empty.
 * @param guestGid      the GID rxe uses, as both tools print it.
 */
record GidChoice(String label, int roceGidIndex, int guestGidIndex, String linkOptions, Gid guestGid)
{
    /** roce4j's IPv4-mapped GID on a tunnel link with one IPv4 address (after the link-local GID 0). */
    static final int ROCE_IPV4_GID_INDEX = 1;
    /** Where rxe keeps its GID table (one file per index) and each entry's type. */
    private static final String PORT_SYSFS = "/sys/class/infiniband/rxe0/ports/1";

    /**
     * @param peer a ready peer.
     * @return IPv4-mapped GIDs on both sides: what every interop case uses unless it says otherwise.
     */
    static GidChoice ipv4(final RxePeer peer)
    {
        return new GidChoice("IPv4", ROCE_IPV4_GID_INDEX, peer.ready().ipv4GidIndex(), "",
            Gid.parse(peer.options().guestAddress()));
    }

    /**
     * Wait until rxe lists a GID (it adds one from the address notifier, asynchronously) and return its index.
     *
     * @param peer the peer.
     * @param gid  e.g. the link-local GID of the guest's MAC, or a global address given to eth0.
     * @return the index of its RoCE v2 entry in rxe's table (sysfs).
     * @throws IOException when the guest cannot be asked.
     */
    static int guestGidIndex(final RxePeer peer, final Gid gid) throws IOException
    {
        final String want = gid.toSysfsString();
        final RxePeer.Result table = peer.run("timeout 20 sh -c 'until grep -lx " + want + " " + PORT_SYSFS +
            "/gids/* >/dev/null 2>&1; do usleep 50000; done'; cd " + PORT_SYSFS + " && for i in $(grep -L -x " +
            "0000:0000:0000:0000:0000:0000:0000:0000 gids/* | sed 's,.*/,,' | sort -n); do " +
            "echo \"$i $(cat gids/$i) $(cat gid_attrs/types/$i 2>/dev/null)\"; done", Duration.ofSeconds(40));
        final Map<Integer, String> entries = new TreeMap<>();
        int index = -1;
        for (final String line : table.output().lines().toList())
        {
            final String[] f = line.trim().split(" ", 3);
            if (3 == f.length && f[0].matches("\\d+"))
            {
                entries.put(Integer.parseInt(f[0]), f[1] + " " + f[2]);
                if (want.equals(f[1]) && "RoCE v2".equals(f[2]) && index < 0)
                {
                    index = Integer.parseInt(f[0]);
                }
            }
        }
        assertTrue(index >= 0, "rxe has no RoCE v2 GID " + want + "; its table: " + entries + "\n" + table.output());
        return index;
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
