package org.roce4j.interop;

import java.io.IOException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.roce4j.transport.link.fault.FaultReport;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.addr.Mac;
import org.roce4j.wire.header.Ipv4Header;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code roce pingpong} against ibv_rc_pingpong with the guest's NIC on a tap device in a network namespace (issue 6
 * point 5): over the udp link (a kernel UDP socket bound to the namespace's address on the tap) and over the pcap
 * link (raw frames on the tap itself, with an address of its own), roce4j as client and as server, 1,000
 * iterations with -c of 4096 bytes (one SEND_ONLY each way at path MTU 4096) and 65536 bytes (SEND_FIRST, 14 x
 * SEND_MIDDLE, SEND_LAST). The guest's NIC has MTU 9000, so rxe's active MTU is 4096 and the links carry
 * 4154-byte frames.
 *
 * <p>Addresses, all inside the namespace: guest 10.98.0.2, the namespace's kernel 10.98.0.1 on the tap (the udp
 * link's address, and the end of every TCP side channel), the pcap link 10.98.0.3. The pcap link's address is one
 * the kernel does not own, so only the link answers ARP for it, and the kernel, which also receives every frame on
 * the tap, drops the link's UDP 4791 datagrams without answering them with ICMP port unreachable (IPv4 forwarding is
 * off in the namespace: a datagram for an address that is not local is dropped silently; with the link's own MAC
 * it is not even addressed to the kernel). The tests check that: no ICMP errors, no UDP datagram reached the kernel.
 *
 * <p>Beyond both programs' output and rxe's counters ({@link TapPingpong}), a capture on the tap checks every frame's
 * ICRC both ways and, for the udp link, that the kernel wrote IPv4 identification 0 and DF on every frame it sent
 * for roce4j (the ICRC covers them; see roce-transport/README-links.md).
 *
 * <p>Also: both links over IPv6 ({@code fd00:98::/64}: the namespace's kernel {@code ::1}, the guest {@code ::2},
 * the pcap link {@code ::3}), and both links under the fault profile over IPv4 and over IPv6.
 */
@RxePeerTest(tap = true, mtu = 9000, guestIp = "10.98.0.2/24", linkIp = "10.98.0.1", hostfwd = {})
class TapPingpongWithRxeTest
{
    private static final int ITERATIONS = 1000;
    /** rxe's active MTU with a 9000-byte guest NIC, used as the path MTU on both sides. */
    private static final int PATH_MTU = 4096;
    /** The pcap link's own address: on the tap's subnet, not the kernel's. */
    private static final String PCAP_IP = "10.98.0.3";
    /** The pcap link's own MAC in {@link #pcapLinkWithItsOwnMac}: locally administered, made from its address. */
    private static final long PCAP_MAC = Mac.ofIpv4(Ipv4Header.parseAddress(PCAP_IP));

    /** The namespace kernel's, the guest's and the pcap link's IPv6 addresses on the tap (RFC 4193 unique local). */
    private static final String HOST_IPV6 = "fd00:98::1";
    private static final String GUEST_IPV6 = "fd00:98::2";
    private static final String PCAP_IPV6 = "fd00:98::3";
    /** The fault profile's seed, printed with each case. */
    private static final long FAULT_SEED = 0x5EED;

    private RxePeer peer;

    @ParameterizedTest(name = "udp link, {0} B, roce4j as {1}")
    @CsvSource({"4096, client", "65536, client", "4096, server", "65536, server"})
    void udpLink(final int size, final String role) throws IOException
    {
        final String address = peer.tapNetwork().hostAddress();
        final TapPingpong.Outcome outcome = run("udp-" + size + "-" + role, "udp:" + address, address, size, role,
            null);
        assertEquals(outcome.capture().framesToGuest(), outcome.capture().kernelHeaderToGuest(),
            "frames the kernel sent for the udp link without IPv4 ID 0 and DF: " + outcome.capture());
    }

    @ParameterizedTest(name = "pcap link with its own MAC, {0} B, roce4j as {1}")
    @CsvSource({"4096, client", "65536, client", "4096, server", "65536, server"})
    void pcapLinkWithItsOwnMac(final int size, final String role) throws IOException
    {
        checkPcapRun(run("pcap-ownmac-" + size + "-" + role, pcapSpec(PCAP_IP), PCAP_IP, size, role, null), PCAP_MAC);
    }

    @ParameterizedTest(name = "{0} link over IPv{1} under the fault profile, 4096 B, roce4j as {2}")
    @CsvSource({"udp, 4, client", "udp, 4, server", "pcap, 4, client", "pcap, 4, server",
        "udp, 6, client", "udp, 6, server", "pcap, 6, client", "pcap, 6, server"})
    void faultProfile(final String link, final int ipVersion, final String role) throws IOException
    {
        final String tag = (6 == ipVersion ? "ipv6-faults-" : "faults-") + link + "-" + role;
        onLink(link, ipVersion, (spec, address) ->
        {
            final String faults = InjectedFaults.PINGPONG_PROFILE + ";seed=" + FAULT_SEED;
            System.out.println("[tap-pingpong] " + tag + ": --faults '" + faults + "'");
            final TapPingpong.Outcome outcome = run(tag, spec, address, 4096, role, faults);
            final FaultReport injected = InjectedFaults.parse(outcome.roceErrors());
            InjectedFaults.assertEachKindOfTheProfileInjected(injected);
            System.out.println("[tap-pingpong] " + tag + ": injected " + injected);
        });
    }

    @ParameterizedTest(name = "{0} link over IPv6, 4096 B, roce4j as {1}")
    @CsvSource({"udp, client", "udp, server", "pcap, client", "pcap, server"})
    void overIpv6(final String link, final String role) throws IOException
    {
        onLink(link, 6, (spec, address) ->
        {
            final TapPingpong.Outcome outcome = run("ipv6-" + link + "-4096-" + role, spec, address, 4096, role, null);
            assertTrue(outcome.capture().framesToGuest() > 0, outcome.capture().toString());
            if ("pcap".equals(link))
            {
                // The guest resolved the pcap link's address by Neighbor Discovery, answered by roce4j's ND agent.
                final String neighbour = peer.runOk("ip -6 neigh show " + PCAP_IPV6 + " dev eth0");
                assertTrue(neighbour.contains("lladdr " + Mac.toString(PCAP_MAC)), "the guest's neighbour entry " +
                    "for the pcap link: " + neighbour);
                assertEquals(0, outcome.netns("Icmp6.OutDestUnreachs"), "the kernel answered with ICMPv6 errors: " +
                    outcome.netns());
            }
        });
    }

    /** A case's body, given roce4j's {@code --link} and the address that link has. */
    @FunctionalInterface
    private interface OnLink
    {
        void run(String spec, String address) throws IOException;
    }

    /**
     * Runs a case on the udp link (the namespace kernel's address) or the pcap link (its own address and MAC), over
     * IPv4 or over IPv6 ({@code fd00:98::/64}: the guest's eth0 gets its global address for the case, and both sides
     * use their GID of it).
     */
    private void onLink(final String link, final int ipVersion, final OnLink body) throws IOException
    {
        final boolean udp = "udp".equals(link);
        if (4 == ipVersion)
        {
            final String address = udp ? peer.tapNetwork().hostAddress() : PCAP_IP;
            body.run(udp ? "udp:" + address : pcapSpec(PCAP_IP), address);
            return;
        }
        peer.tapNetwork().enableIpv6(HOST_IPV6 + "/64");
        peer.runOk("ip -6 addr replace " + GUEST_IPV6 + "/64 dev eth0 nodad");
        final Gid guest = Gid.parse(GUEST_IPV6);
        // An IPv6 address alone: the link's GID 0 is its link-local GID, GID 1 the global address.
        peer.useGids(new GidChoice("IPv6 global", 1, GidChoice.guestGidIndex(peer, guest), "", guest));
        try
        {
            body.run(udp ? "udp:[" + HOST_IPV6 + "]" : pcapSpec(PCAP_IPV6), udp ? HOST_IPV6 : PCAP_IPV6);
        }
        finally
        {
            peer.useGids(null);
        }
    }

    /** The pcap link on the tap with its own address and MAC. */
    private String pcapSpec(final String address)
    {
        return "pcap:" + peer.tapNetwork().tap() + ",ip=" + address + ",mac=" + Mac.toString(PCAP_MAC);
    }

    @Test
    void pcapLinkOnTheTapsMac() throws IOException
    {
        final String spec = "pcap:" + peer.tapNetwork().tap() + ",ip=" + PCAP_IP;
        checkPcapRun(run("pcap-tapmac-4096-client", spec, PCAP_IP, 4096, "client", null),
            peer.tapNetwork().tapMac());
    }

    /**
     * One run of 1,000 iterations; the guest learns the pcap link's MAC afresh (from its ARP request or reply).
     *
     * @param faults roce4j's {@code --faults} with their seed, or null for none.
     */
    private TapPingpong.Outcome run(final String tag, final String spec, final String roceIp, final int size,
        final String role, final String faults) throws IOException
    {
        assertEquals(PATH_MTU, peer.ready().activeMtu());
        peer.runOk("ip neigh flush dev eth0 to " + PCAP_IP);
        final String name = "TapPingpongWithRxeTest-" + tag;
        final TapPingpong.Outcome outcome = "client".equals(role) ?
            TapPingpong.roceAsClient(peer, name, spec, roceIp, size, PATH_MTU, ITERATIONS, faults) :
            TapPingpong.roceAsServer(peer, name, spec, roceIp, size, PATH_MTU, ITERATIONS, faults);
        System.out.println("[tap-pingpong] " + name + ": " + outcome.usecPerIter() + " usec/iter, " +
            outcome.elapsedMs() + " ms in all; " + outcome.capture() + "; rxe counters moved: " +
            outcome.rxeCounters() + "; namespace counters moved: " + outcome.netns());
        return outcome;
    }

    private void checkPcapRun(final TapPingpong.Outcome outcome, final long linkMac) throws IOException
    {
        final String context = outcome.capture() + "; namespace counters moved: " + outcome.netns();
        assertEquals(0, outcome.netns("Icmp.OutDestUnreachs"), "the kernel answered with ICMP errors: " + context);
        assertEquals(0, outcome.netns("Udp.InDatagrams") + outcome.netns("Udp.NoPorts"),
            "UDP datagrams reached the namespace's kernel: " + context);
        final String neighbour = peer.runOk("ip neigh show " + PCAP_IP + " dev eth0");
        assertTrue(neighbour.contains("lladdr " + Mac.toString(linkMac)),
            "the guest's neighbour entry for the pcap link: " + neighbour);
    }
}
