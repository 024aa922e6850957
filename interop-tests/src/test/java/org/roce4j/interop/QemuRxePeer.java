package org.roce4j.interop;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.roce4j.testcontainers.GuestDoctor;
import org.roce4j.testcontainers.RxeGuest;
import org.roce4j.testcontainers.RxePeerOptions;
import org.roce4j.testcontainers.RxeReady;
import org.roce4j.transport.link.tunnel.TunnelLink;
import org.roce4j.transport.link.tunnel.TunnelLinkConfig;

/**
 * The rxe peer as a QEMU guest on this machine: docker/rxe-vm/run-vm.sh, one {@link RxeGuest} at a time. The guest's
 * RoCE NIC is a {@code -netdev dgram} tunnel on 127.0.0.1 (free UDP ports picked per boot, so several peers can run
 * side by side), the pingpong side channel is on {@code hostfwd}, and the consoles and QMP are Unix sockets
 * ({@link RxeGuest} drives them). In tap
 * mode the NIC is on {@code -netdev tap} instead, QEMU runs inside the {@link TapNetwork} made for the peer, and that
 * namespace goes when the peer stops.
 *
 * <p>A wedged guest is replaced by {@link #reboot(String)}: the same options on a new QEMU (new ports; the tap
 * network, if any, stays), behind the same object, so the tests' references stay valid.
 */
final class QemuRxePeer extends RxePeer
{
    /** Every peer still running, for the shutdown hook. */
    private static final Set<QemuRxePeer> LIVE = ConcurrentHashMap.newKeySet();

    static
    {
        Runtime.getRuntime().addShutdownHook(new Thread(QemuRxePeer::destroyAll, "rxe-peer-shutdown"));
    }

    private final RxePeerOptions options;
    private final Path logDir;
    private final TapNetwork tapNetwork;
    /** Volatile: the watchdog reads it without the lock, which the test thread holds while it waits. */
    private volatile RxeGuest guest;
    private int boots;
    private volatile boolean closed;

    private QemuRxePeer(final RxePeerOptions options, final Path logDir, final TapNetwork tapNetwork)
    {
        this.options = options;
        this.logDir = logDir;
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
        PeerTools.buildImage(options.suite());
        final Path logDir = PeerTools.targetDir().resolve("rxe-vm");
        Files.createDirectories(logDir);
        final TapNetwork tapNetwork = options.tap() ? TapNetwork.create(options.linkCidr(), options.mtu()) : null;
        final QemuRxePeer peer = new QemuRxePeer(options, logDir, tapNetwork);
        LIVE.add(peer);
        try
        {
            peer.boot();
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

    public synchronized RxeReady ready()
    {
        return guest.ready();
    }

    public synchronized long launchToReadyMs()
    {
        return guest.launchToReadyMs();
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

    public synchronized int boots()
    {
        return boots;
    }

    public TunnelLink openLink(final String pcapName) throws IOException
    {
        requireTunnel();
        return TunnelLink.open(linkConfig().withPcap(recordPcap(pcapName)));
    }

    public String tunnelSpec(final String pcapName, final double loss, final long seed)
    {
        requireTunnel();
        return linkConfig().withPcap(recordPcap(pcapName)).withLoss(loss, seed).toSpec();
    }

    /**
     * @return the tunnel link settings that match the current guest (no pcap).
     */
    TunnelLinkConfig linkConfig()
    {
        return guest.tunnelLinkConfig(options.linkIp(), options.mtu());
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

    protected synchronized int hostPortFor(final int guestPort)
    {
        final Integer hostPort = guest.ports().hostPorts().get(guestPort);
        if (null == hostPort)
        {
            throw new IllegalArgumentException("guest port " + guestPort + " is not forwarded; forwarded: " +
                guest.ports().hostPorts().keySet() + " (see RxePeerTest.hostfwd)" + (null == tapNetwork ? "" :
                "; in tap mode connect from inside namespace " + tapNetwork.name() + " to " + options.guestAddress()));
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

    public Result run(final String command, final Duration timeout) throws IOException
    {
        if (closed)
        {
            throw new IOException("rxe peer " + options.name() + " is stopped");
        }
        return guest.run(command, timeout);
    }

    public void interruptCommand()
    {
        guest.interrupt();   // not synchronized: the test thread holds the guest's lock while it waits
    }

    public synchronized GuestDoctor.Health health()
    {
        if (closed)
        {
            return GuestDoctor.Health.sick("the peer is stopped");
        }
        killBackground();
        return guest.health(null == tapNetwork ? GuestDoctor.arpProbe(guest, options) :
            GuestDoctor.pingFromGuest(guest, options.linkIp()));
    }

    public synchronized Path diagnose(final Path dir, final String why)
    {
        return guest.capture(dir, why);
    }

    protected synchronized void replaceGuest() throws IOException
    {
        guest.close();
        boot();
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
            if (null != guest)
            {
                guest.close();
            }
        }
        finally
        {
            LIVE.remove(this);
            if (null != tapNetwork)
            {
                tapNetwork.close();
            }
        }
    }

    private void boot() throws IOException
    {
        boots++;
        final String bootName = 1 == boots ? options.name() : options.name() + ".boot" + boots;
        guest = RxeGuest.boot(options, bootName, logDir, new RxeGuest.Launcher()
        {
            public boolean tcp()
            {
                return false;   // Unix sockets: in tap mode QEMU's 127.0.0.1 is the namespace's
            }

            public RxeGuest.Vm start(final List<String> arguments, final RxeGuest.Ports ports, final Path stderrLog)
                throws IOException
            {
                return startProcess(arguments, stderrLog);
            }
        });
    }

    private RxeGuest.Vm startProcess(final List<String> runVmArguments, final Path stderrLog) throws IOException
    {
        final List<String> command = new ArrayList<>();
        command.add("bash");
        command.add(PeerTools.repoRoot().resolve("docker/rxe-vm/run-vm.sh").toString());
        command.addAll(runVmArguments);
        // In tap mode QEMU (run-vm.sh execs it) runs inside the namespace and opens the tap there.
        final ProcessBuilder builder = new ProcessBuilder(null == tapNetwork ? command : tapNetwork.command(command))
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .redirectError(ProcessBuilder.Redirect.to(stderrLog.toFile()));
        // Settings of run-vm.sh a developer may have exported must not change what the test asked for.
        builder.environment().keySet().removeIf(key -> key.startsWith("ROCE4J_RXE_") &&
            !key.equals("ROCE4J_RXE_VM_CACHE") && !key.equals("ROCE4J_RXE_NIC_MODEL"));
        final Process process = builder.start();
        return new RxeGuest.Vm()
        {
            public boolean isAlive()
            {
                return process.isAlive();
            }

            public int exitCode()
            {
                return process.isAlive() ? -1 : process.exitValue();
            }

            public void stop(final long waitMs)
            {
                try
                {
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
                catch (final InterruptedException ex)
                {
                    process.destroyForcibly();
                    Thread.currentThread().interrupt();
                }
            }
        };
    }

    private static void destroyAll()
    {
        for (final QemuRxePeer peer : LIVE)
        {
            final RxeGuest guest = peer.guest;
            if (null != guest)
            {
                guest.vm().stop(0);
            }
        }
    }
}
