package org.roce4j.transport.link.pcap;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.roce4j.transport.link.NetworkNamespace;
import org.roce4j.wire.addr.Gid;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The pcap link puts a joined group's MAC in the interface's multicast filter, as {@code ip maddr add} (and rxe's
 * dev_mc_add) do, and takes it out when the last group on that MAC is left or the link closes: checked with
 * {@code ip maddr show} on a veth inside a namespace made for the run. The link's MAC is the interface's and it owns
 * no IPv6 address, so its handle is not promiscuous and the filter is what lets group frames in.
 */
class PcapMulticastFilterTest
{
    private static final String LINK_END = "mcf0";
    private static final String OTHER_END = "mcf1";
    /** 239.1.2.3 and 224.1.2.3 share the MAC 01:00:5e:01:02:03 (RFC 1112: only the low 23 bits map). */
    private static final Gid IPV4_GROUP = Gid.parse("::ffff:239.1.2.3");
    private static final Gid SAME_MAC_GROUP = Gid.parse("::ffff:224.1.2.3");
    private static final String IPV4_MAC = "01:00:5e:01:02:03";
    /** RFC 2464: 33:33 and the group's low 32 bits. */
    private static final Gid IPV6_GROUP = Gid.parse("ff0e::1:3");
    private static final String IPV6_MAC = "33:33:00:01:00:03";
    private static NetworkNamespace namespace;

    @BeforeAll
    static void createVethPair()
    {
        namespace = NetworkNamespace.withPcapVethPair("mcf", LINK_END, OTHER_END, 1500);
    }

    @AfterAll
    static void removeNamespace()
    {
        if (null != namespace)
        {
            namespace.close();
        }
    }

    private static String filter()
    {
        return namespace.ip("maddr", "show", "dev", LINK_END);
    }

    @Test
    void joiningAddsTheGroupMacAndLeavingTheLastGroupOnItRemovesIt()
    {
        final PcapLink link = namespace.call(() -> PcapLink.open("pcap:" + LINK_END +
            ",ip=10.77.0.1"));
        try
        {
            assertFalse(link.filterExpression().isEmpty());
            assertFalse(filter().contains(IPV4_MAC), filter());
            namespace.call(() ->
            {
                link.joinGroup(IPV4_GROUP.high(), IPV4_GROUP.low());
                link.joinGroup(SAME_MAC_GROUP.high(), SAME_MAC_GROUP.low());
                link.joinGroup(IPV6_GROUP.high(), IPV6_GROUP.low());
                return null;
            });
            assertTrue(filter().contains("link  " + IPV4_MAC), filter());
            assertTrue(filter().contains("link  " + IPV6_MAC), filter());

            namespace.call(() ->
            {
                link.leaveGroup(IPV4_GROUP.high(), IPV4_GROUP.low());
                link.leaveGroup(IPV6_GROUP.high(), IPV6_GROUP.low());
                return null;
            });
            assertTrue(filter().contains(IPV4_MAC), "224.1.2.3 still joined on the same MAC: " + filter());
            assertFalse(filter().contains(IPV6_MAC), filter());

            namespace.call(() ->
            {
                link.joinGroup(IPV6_GROUP.high(), IPV6_GROUP.low());
                return null;
            });
            assertTrue(filter().contains(IPV6_MAC), filter());
        }
        finally
        {
            namespace.call(() ->
            {
                link.close();
                return null;
            });
        }
        assertFalse(filter().contains(IPV4_MAC), "close removes what was never left: " + filter());
        assertFalse(filter().contains(IPV6_MAC), "close removes what was never left: " + filter());
    }
}
