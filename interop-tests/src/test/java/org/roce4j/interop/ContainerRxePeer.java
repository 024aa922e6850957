package org.roce4j.interop;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;

import org.roce4j.testcontainers.GuestDoctor;
import org.roce4j.testcontainers.RxeContainer;
import org.roce4j.testcontainers.RxePeerOptions;
import org.roce4j.testcontainers.RxeReady;
import org.roce4j.transport.link.tunnel.TunnelLink;
import org.testcontainers.DockerClientFactory;

/**
 * The rxe peer as the {@code roce4j/rxe-qemu} container ({@link RxeContainer}, started through Testcontainers): the
 * same QEMU guest as {@link QemuRxePeer}, run by a Docker engine on the host's network, so its dgram NIC, forwarded
 * ports and consoles sit on this host's 127.0.0.1. Tests choose it with {@code @RxePeerTest(backend = CONTAINER)};
 * the image comes from {@code docker/build-images.sh}, which {@code .ci/run} runs.
 */
final class ContainerRxePeer extends RxePeer
{
    private final RxePeerOptions options;
    private volatile RxeContainer container;
    private int boots;
    private volatile boolean closed;

    private ContainerRxePeer(final RxePeerOptions options)
    {
        this.options = options;
    }

    /**
     * @return true when Testcontainers finds a Docker engine.
     */
    static boolean dockerAvailable()
    {
        try
        {
            return DockerClientFactory.instance().isDockerAvailable();
        }
        catch (final RuntimeException | LinkageError ex)
        {
            return false;
        }
    }

    /**
     * Start the container and wait for the guest's ready line.
     *
     * @param options how (tap mode is not possible in a container).
     * @return the ready peer.
     * @throws IOException when the container or the guest does not start.
     */
    static ContainerRxePeer launch(final RxePeerOptions options) throws IOException
    {
        if (options.tap())
        {
            throw new IllegalArgumentException("tap mode needs the local QEMU peer, not a container");
        }
        final ContainerRxePeer peer = new ContainerRxePeer(options);
        peer.boot();
        return peer;
    }

    public RxePeerOptions options()
    {
        return options;
    }

    public RxeReady ready()
    {
        return container.ready();
    }

    public long launchToReadyMs()
    {
        return container.guest().launchToReadyMs();
    }

    public Result run(final String command, final Duration timeout) throws IOException
    {
        if (closed)
        {
            throw new IOException("rxe peer container " + options.name() + " is stopped");
        }
        return container.guest().run(command, timeout);
    }

    public boolean supportsTunnel()
    {
        return true;
    }

    public TunnelLink openLink(final String pcapName) throws IOException
    {
        return TunnelLink.open(container.guest().tunnelLinkConfig(options.linkIp(), options.mtu())
            .withPcap(recordPcap(pcapName)));
    }

    public String tunnelSpec(final String pcapName, final double loss, final long seed)
    {
        return container.guest().tunnelLinkConfig(options.linkIp(), options.mtu()).withPcap(recordPcap(pcapName))
            .withLoss(loss, seed).toSpec();
    }

    protected int hostPortFor(final int guestPort)
    {
        return container.forwardedPort(guestPort);
    }

    public String hostAddressForGuest(final int hostPort)
    {
        return container.hostAddressForGuest(hostPort);
    }

    public synchronized void close()
    {
        if (!closed)
        {
            closed = true;
            container.stop();
        }
    }

    public synchronized GuestDoctor.Health health()
    {
        if (closed)
        {
            return GuestDoctor.Health.sick("the peer is stopped");
        }
        killBackground();
        return container.health();
    }

    public synchronized Path diagnose(final Path dir, final String why)
    {
        return container.diagnose(dir, why);
    }

    protected synchronized void replaceGuest() throws IOException
    {
        container.stop();
        boot();
    }

    public void interruptCommand()
    {
        container.guest().interrupt();
    }

    public synchronized int boots()
    {
        return boots;
    }

    private void boot() throws IOException
    {
        boots++;
        final RxeContainer next = new RxeContainer()
            .withMtu(options.mtu())
            .withAddresses(options.guestIp(), options.linkIp())
            .withForwardedGuestPorts(options.hostfwd())
            .withLogs(1 == boots ? options.name() : options.name() + ".boot" + boots,
                PeerTools.targetDir().resolve("rxe-vm"), options.readyTimeout());
        if (options.hostAccess())
        {
            next.withHostAccess();
        }
        try
        {
            next.start();
        }
        catch (final RuntimeException ex)
        {
            throw new IOException("rxe peer container " + options.name() + " did not start: " + ex.getMessage(), ex);
        }
        container = next;
    }
}
