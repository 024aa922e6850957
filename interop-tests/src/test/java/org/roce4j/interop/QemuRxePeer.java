package org.roce4j.interop;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.roce4j.transport.link.tunnel.TunnelLink;
import org.roce4j.transport.link.tunnel.TunnelLinkConfig;
import org.roce4j.wire.header.Ipv4Header;

/**
 * The rxe peer as a QEMU guest: docker/rxe-vm/run-vm.sh with the guest's RoCE NIC on {@code -netdev dgram}
 * (127.0.0.1, free UDP ports picked per peer, so several peers can run side by side), the pingpong side channel
 * on {@code hostfwd}, and the serial console on QEMU's stdio. In tap mode the NIC is on {@code -netdev tap} instead,
 * QEMU runs inside the {@link TapNetwork} made for the peer, and that namespace goes when the peer stops.
 */
final class QemuRxePeer extends RxePeer
{
    /** Every peer still running, for the shutdown hook. */
    private static final Set<QemuRxePeer> LIVE = ConcurrentHashMap.newKeySet();
    /** Time QEMU gets to exit after {@code poweroff -f} before it is destroyed. */
    private static final long POWEROFF_WAIT_MS = 20_000;

    static
    {
        Runtime.getRuntime().addShutdownHook(new Thread(QemuRxePeer::destroyAll, "rxe-peer-shutdown"));
    }

    private final RxePeerOptions options;
    private final Process process;
    private final SerialConsole console;
    private final int linkPort;
    private final int guestDgramPort;
    private final Map<Integer, Integer> hostPorts;
    private final Path logDir;
    private final long startNs;
    private final TapNetwork tapNetwork;
    private RxeReady ready;
    private long launchToReadyMs = -1;
    private boolean closed;

    private QemuRxePeer(
        final RxePeerOptions options,
        final Process process,
        final SerialConsole console,
        final int linkPort,
        final int guestDgramPort,
        final Map<Integer, Integer> hostPorts,
        final Path logDir,
        final long startNs,
        final TapNetwork tapNetwork)
    {
        this.options = options;
        this.process = process;
        this.console = console;
        this.linkPort = linkPort;
        this.guestDgramPort = guestDgramPort;
        this.hostPorts = hostPorts;
        this.logDir = logDir;
        this.startNs = startNs;
        this.tapNetwork = tapNetwork;
    }

    /**
     * Build the image if needed, start the guest and wait for its ready line.
     *
     * @param options how.
     * @return the ready peer.
     * @throws IOException when QEMU cannot start or the guest does not get ready; the peer is stopped then.
     */
    static QemuRxePeer launch(final RxePeerOptions options) throws IOException
    {
        PeerTools.buildImage();
        final Path root = PeerTools.repoRoot();
        final Path logDir = PeerTools.targetDir().resolve("rxe-vm");
        final int linkPort = PeerTools.freeUdpPort();
        final int guestDgramPort = PeerTools.freeUdpPort();
        final Map<Integer, Integer> hostPorts = new LinkedHashMap<>();
        final List<String> vm = new ArrayList<>(List.of(
            "bash", root.resolve("docker/rxe-vm/run-vm.sh").toString(), "--no-build",
            "--ip", options.guestIp(),
            "--mtu", Integer.toString(options.mtu()),
            "--serial", "stdio"));
        if (options.tap())
        {
            vm.add("--tap");
            vm.add(TapNetwork.TAP);
        }
        else
        {
            vm.add("--dgram");
            vm.add(guestDgramPort + ":" + linkPort);
        }
        for (final int guestPort : options.hostfwd())
        {
            final int hostPort = PeerTools.freeTcpPort();
            hostPorts.put(guestPort, hostPort);
            vm.add("--hostfwd");
            vm.add(hostPort + ":" + guestPort);
        }
        if (options.hostAccess())
        {
            vm.add("--host-access");
        }
        Files.createDirectories(logDir);

        final TapNetwork tapNetwork = options.tap() ? TapNetwork.create(options.linkCidr(), options.mtu()) : null;
        // In tap mode QEMU (run-vm.sh execs it) runs inside the namespace and opens the tap there.
        final ProcessBuilder builder = new ProcessBuilder(null == tapNetwork ? vm : tapNetwork.command(vm))
            .redirectError(ProcessBuilder.Redirect.to(logDir.resolve(options.name() + ".stderr.log").toFile()));
        // Settings of run-vm.sh a developer may have exported must not change what the test asked for.
        builder.environment().keySet().removeIf(key -> key.startsWith("ROCE4J_RXE_") &&
            !key.equals("ROCE4J_RXE_VM_CACHE") && !key.equals("ROCE4J_RXE_NIC_MODEL"));
        final long startNs = System.nanoTime();
        final Process process;
        try
        {
            process = builder.start();
        }
        catch (final IOException | RuntimeException ex)
        {
            if (null != tapNetwork)
            {
                tapNetwork.close();
            }
            throw ex;
        }
        final SerialConsole console;
        try
        {
            console = new SerialConsole(options.name(), process.getInputStream(), process.getOutputStream(),
                logDir.resolve(options.name() + ".console.log"));
        }
        catch (final IOException | RuntimeException ex)
        {
            process.destroyForcibly();
            if (null != tapNetwork)
            {
                tapNetwork.close();
            }
            throw ex;
        }
        final QemuRxePeer peer = new QemuRxePeer(
            options, process, console, linkPort, guestDgramPort, hostPorts, logDir, startNs, tapNetwork);
        LIVE.add(peer);
        try
        {
            peer.awaitReady();
        }
        catch (final IOException | RuntimeException | Error ex)
        {
            peer.close();
            throw ex;
        }
        return peer;
    }

    public RxePeerOptions options()
    {
        return options;
    }

    public RxeReady ready()
    {
        return ready;
    }

    public long launchToReadyMs()
    {
        return launchToReadyMs;
    }

    public boolean supportsTunnel()
    {
        return null == tapNetwork;
    }

    public TapNetwork tapNetwork()
    {
        if (null == tapNetwork)
        {
            return super.tapNetwork();
        }
        return tapNetwork;
    }

    /**
     * @return the UDP port QEMU sends the guest's frames to (the tunnel link binds it).
     */
    int linkPort()
    {
        return linkPort;
    }

    /**
     * @return the UDP port of the guest's NIC on the host (the tunnel link sends to it).
     */
    int guestDgramPort()
    {
        return guestDgramPort;
    }

    public TunnelLink openLink(final String pcapName) throws IOException
    {
        requireTunnel();
        final Path pcap = null == pcapName ? null : PeerTools.targetDir().resolve("pcaps").resolve(pcapName + ".pcap");
        return TunnelLink.open(linkConfig().withPcap(pcap));
    }

    public String tunnelSpec(final String pcapName, final double loss, final long seed)
    {
        requireTunnel();
        final Path pcap = null == pcapName ? null : PeerTools.targetDir().resolve("pcaps").resolve(pcapName + ".pcap");
        return linkConfig().withPcap(pcap).withLoss(loss, seed).toSpec();
    }

    /**
     * @return the tunnel link settings that match this guest (no pcap).
     */
    TunnelLinkConfig linkConfig()
    {
        return TunnelLinkConfig.of("127.0.0.1", linkPort, "127.0.0.1", guestDgramPort,
            Ipv4Header.parseAddress(options.linkIp())).withMtu(options.mtu());
    }

    private void requireTunnel()
    {
        if (null != tapNetwork)
        {
            throw new UnsupportedOperationException("rxe peer " + options.name() + " is in tap mode: its NIC is " +
                tapNetwork.tap() + " in namespace " + tapNetwork.name() + "; reach it with a udp: or pcap: link " +
                "from inside that namespace");
        }
    }

    protected int hostPortFor(final int guestPort)
    {
        final Integer hostPort = hostPorts.get(guestPort);
        if (null == hostPort)
        {
            throw new IllegalArgumentException("guest port " + guestPort + " is not forwarded; forwarded: " +
                hostPorts.keySet() + " (see RxePeerTest.hostfwd)" + (null == tapNetwork ? "" : "; in tap mode " +
                "connect from inside namespace " + tapNetwork.name() + " to " + options.guestAddress()));
        }
        return hostPort;
    }

    public String hostAddressForGuest(final int hostPort)
    {
        if (!options.hostAccess())
        {
            throw new IllegalStateException("the guest cannot reach the host: start the peer with hostAccess");
        }
        // QEMU user networking maps the virtual host address 10.0.2.2 to the host's loopback.
        return "10.0.2.2:" + hostPort;
    }

    public synchronized Result run(final String command, final Duration timeout) throws IOException
    {
        if (closed)
        {
            throw new IOException("rxe peer " + options.name() + " is stopped");
        }
        console.send(command);
        final long deadlineNs = System.nanoTime() + timeout.toNanos();
        final SerialConsole.Completion completion = console.awaitCompletion(deadlineNs);
        if (null != completion)
        {
            return new Result(completion.exitCode(), completion.output());
        }
        final String partial = console.tail(4000);
        console.writeRaw(new byte[] {SerialConsole.CTRL_C});
        final SerialConsole.Completion interrupted =
            console.awaitCompletion(System.nanoTime() + TimeUnit.SECONDS.toNanos(10));
        throw new AssertionError("'" + command + "' did not finish within " + timeout + " and was interrupted" +
            (null == interrupted ? " (no answer to ^C either)" : " (rc " + interrupted.exitCode() + ")") +
            "; output so far:\n" + partial);
    }

    public synchronized void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        try
        {
            if (process.isAlive())
            {
                // A guest that never got ready has no command loop to power it off: destroy it at once.
                final long waitMs = null == ready ? 0 : POWEROFF_WAIT_MS;
                try
                {
                    console.writeRaw("\npoweroff -f\n".getBytes(StandardCharsets.US_ASCII));
                }
                catch (final IOException ignore)
                {
                    // QEMU's stdin is gone; destroy it below.
                }
                if (!process.waitFor(waitMs, TimeUnit.MILLISECONDS))
                {
                    process.destroy();
                    if (!process.waitFor(5, TimeUnit.SECONDS))
                    {
                        process.destroyForcibly();
                        process.waitFor(10, TimeUnit.SECONDS);
                    }
                }
            }
        }
        catch (final InterruptedException ex)
        {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        finally
        {
            console.close();
            LIVE.remove(this);
            if (null != tapNetwork)
            {
                tapNetwork.close();
            }
        }
    }

    private void awaitReady() throws IOException
    {
        final long deadlineNs = startNs + options.readyTimeout().toNanos();
        final String line = console.awaitLine(deadlineNs, () -> process.isAlive() ? -1 : process.exitValue(),
            RxeReady.READY + " ", RxeReady.FAILED + " ");
        if (null == line)
        {
            throw new IOException("rxe guest " + options.name() + " not ready within " + options.readyTimeout() +
                "; console:\n" + console.tail(3000) + "\nqemu stderr:\n" +
                PeerTools.tail(logDir.resolve(options.name() + ".stderr.log"), 20));
        }
        if (line.startsWith(RxeReady.FAILED))
        {
            throw new IOException("rxe guest " + options.name() + " failed to set up: " + line + "; see " +
                logDir.resolve(options.name() + ".console.log"));
        }
        launchToReadyMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
        ready = RxeReady.parse(line);
    }

    private static void destroyAll()
    {
        for (final QemuRxePeer peer : LIVE)
        {
            peer.process.destroyForcibly();
        }
    }
}
