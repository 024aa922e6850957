package org.roce4j.interop;

import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.roce4j.testcontainers.RxePeerOptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.abort;

/**
 * The tap-mode fixture on its own: the namespace and tap {@link TapNetwork} makes (and removes), code run inside it,
 * a tap peer that fails to start leaving nothing behind, and the options tap mode refuses. The first two need root
 * (skipped otherwise, failing under {@code ROCE4J_REQUIRE_TOOLS=1}); the peer test also needs QEMU and the image.
 */
class TapNetworkTest
{
    @Test
    @Tag("interop")
    void makesAndRemovesTheNamespaceAndTap() throws Exception
    {
        requireTapMode();
        final TapNetwork network = TapNetwork.create("10.98.7.1/24", 9000);
        try
        {
            assertTrue(namespaces().contains(network.name()), network.name());
            assertTrue(network.name().startsWith(TapNetwork.PREFIX + ProcessHandle.current().pid() + "-"));
            final String link = network.ip("-o", "link", "show", TapNetwork.TAP);
            assertTrue(link.contains(" mtu 9000 "), link);
            assertTrue(link.contains("link/ether 02:00:0a:62:07:01 "), link);
            assertTrue(network.ip("-o", "addr", "show", TapNetwork.TAP).contains("inet 10.98.7.1/24 "));
            assertEquals("0", TapNetwork.run(network.command(List.of("cat", "/proc/sys/net/ipv4/ip_forward"))
                .toArray(new String[0])).trim(), "IPv4 forwarding in the namespace");
            assertTrue(network.snmp().containsKey("Icmp.OutDestUnreachs"), network.snmp().toString());

            // The address exists only inside the namespace: binding it works on a thread that entered it.
            final InetSocketAddress address = new InetSocketAddress(network.hostAddress(), 0);
            assertThrows(BindException.class, () -> bindAndClose(address));
            final CompletableFuture<Integer> inside = new CompletableFuture<>();
            network.startThread("bind-inside", () ->
            {
                try
                {
                    inside.complete(bindAndClose(address));
                }
                catch (final IOException | RuntimeException ex)
                {
                    inside.completeExceptionally(ex);
                }
            });
            assertTrue(inside.get(30, TimeUnit.SECONDS) > 0);
        }
        finally
        {
            network.close();
        }
        assertFalse(namespaces().contains(network.name()), network.name());
        network.close();
    }

    @Test
    @Tag("interop")
    @Tag("slow")
    void aTapPeerThatNeverGetsReadyLeavesNoNamespace()
    {
        requireTapMode();
        if (PeerTools.Backend.QEMU != PeerTools.detectBackend())
        {
            skipOrFail("needs " + PeerTools.QEMU_BINARY);
        }
        final Set<String> before = namespaces();
        final RxePeerOptions options = new RxePeerOptions("TapNetworkTest-not-ready", 1500, "10.98.8.2/24",
            "10.98.8.1", new int[0], false, Duration.ofSeconds(1), true);
        final IOException failure = assertThrows(IOException.class, () -> RxePeer.start(options).close());
        assertTrue(failure.getMessage().contains("not ready within"), failure.getMessage());
        final Set<String> left = namespaces();
        left.removeAll(before);
        assertEquals(Set.of(), left, "namespaces left behind");
    }

    @Test
    void tapModeRefusesHostForwardsAndHostAccess()
    {
        final IllegalArgumentException forwards = assertThrows(IllegalArgumentException.class,
            () -> new RxePeerOptions("x", 1500, "10.98.0.2/24", "10.98.0.1", new int[] {18515}, false,
                Duration.ofSeconds(1), true));
        assertTrue(forwards.getMessage().contains("hostfwd = {}"), forwards.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new RxePeerOptions("x", 1500, "10.98.0.2/24",
            "10.98.0.1", new int[0], true, Duration.ofSeconds(1), true));
        final RxePeerOptions options = new RxePeerOptions("x", 9000, "10.98.0.2/24", "10.98.0.1", new int[0], false,
            Duration.ofSeconds(1), true);
        assertEquals("10.98.0.1/24", options.linkCidr());
        assertFalse(RxePeerOptions.defaults("x").tap());
    }

    private static int bindAndClose(final InetSocketAddress address) throws IOException
    {
        try (DatagramChannel channel = DatagramChannel.open())
        {
            channel.bind(address);
            return ((InetSocketAddress)channel.getLocalAddress()).getPort();
        }
    }

    private static Set<String> namespaces()
    {
        return Arrays.stream(TapNetwork.run("ip", "netns", "list").split("\n"))
            .map(line -> line.trim().split("\\s+")[0])
            .filter(name -> !name.isEmpty())
            .collect(Collectors.toCollection(HashSet::new));
    }

    private static void requireTapMode()
    {
        final String reason = TapNetwork.unavailableReason();
        if (null != reason)
        {
            skipOrFail(reason);
        }
    }

    private static void skipOrFail(final String reason)
    {
        if (PeerTools.toolsRequired())
        {
            throw new IllegalStateException(PeerTools.REQUIRE_TOOLS_ENV + "=1 but the test " + reason);
        }
        abort(reason);
    }
}
