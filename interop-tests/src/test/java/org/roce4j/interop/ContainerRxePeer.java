package org.roce4j.interop;

import java.io.IOException;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.github.dockerjava.api.model.Capability;
import com.github.dockerjava.api.model.Ulimit;
import org.roce4j.transport.link.tunnel.TunnelLink;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.Testcontainers;
import org.testcontainers.containers.Container;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.images.builder.ImageFromDockerfile;

/**
 * The rxe peer as the docker/rxe-peer container, started through Testcontainers when QEMU is not installed but a
 * Docker engine is.
 *
 * <p><b>Limits, stated plainly.</b> This path has never run on the project's machines (they have no Docker
 * engine); it is written against the Testcontainers API and docker/README.md and compiles, nothing more. It needs
 * a host kernel with {@code rdma_rxe} loaded ({@code modprobe rdma_rxe}) and gives the container NET_ADMIN and an
 * unlimited memlock. Commands run with {@code docker exec}, so {@link #run} works, and with it everything built on
 * commands ({@link #start(String, String)}, {@link #copyOut}, {@link #hwCounters()}); the pingpong port is
 * published for {@link #tcpConnect}. The container's rxe NIC is its eth0 on a Docker bridge, which a
 * {@link TunnelLink} cannot reach: {@link #supportsTunnel()} is false and tests that exchange raw frames skip
 * themselves on this backend. Reaching it would take a raw-socket or kernel-UDP link on the bridge.
 */
final class ContainerRxePeer extends RxePeer
{
    private static final Pattern READY_LINE = Pattern.compile("(" + RxeReady.READY + " [^\\r\\n]*)");

    private final RxePeerOptions options;
    private final GenericContainer<?> container;
    private final RxeReady ready;
    private final long launchToReadyMs;
    private boolean closed;

    private ContainerRxePeer(
        final RxePeerOptions options, final GenericContainer<?> container, final RxeReady ready,
        final long launchToReadyMs)
    {
        this.options = options;
        this.container = container;
        this.ready = ready;
        this.launchToReadyMs = launchToReadyMs;
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
     * Build the image from docker/rxe-peer, start it with {@code sleep} and wait for the ready line in its log.
     *
     * @param options how; the IP and MTU of the container's eth0 come from Docker, only the MTU is applied.
     * @return the ready peer.
     * @throws IOException when the container does not start.
     */
    static ContainerRxePeer launch(final RxePeerOptions options) throws IOException
    {
        final ImageFromDockerfile image = new ImageFromDockerfile("roce4j-rxe-peer", false)
            .withFileFromPath(".", PeerTools.repoRoot().resolve("docker/rxe-peer"));
        final GenericContainer<?> container = new GenericContainer<>(image);
        container.withEnv("ROCE4J_RXE_MTU", Integer.toString(options.mtu()))
            .withExposedPorts(toIntegers(options.hostfwd()))
            .withCreateContainerCmdModifier(cmd -> cmd.getHostConfig()
                .withCapAdd(Capability.NET_ADMIN)
                .withUlimits(new Ulimit[] {new Ulimit("memlock", -1L, -1L)}))
            .waitingFor(Wait.forLogMessage(".*" + RxeReady.READY + ".*", 1)
                .withStartupTimeout(options.readyTimeout()));
        final long startNs = System.nanoTime();
        try
        {
            container.start();
        }
        catch (final RuntimeException ex)
        {
            container.close();
            throw new IOException("rxe peer container did not start: " + ex.getMessage(), ex);
        }
        final long launchToReadyMs = (System.nanoTime() - startNs) / 1_000_000L;
        final Matcher matcher = READY_LINE.matcher(container.getLogs());
        if (!matcher.find())
        {
            container.close();
            throw new IOException("rxe peer container printed no ready line");
        }
        return new ContainerRxePeer(options, container, RxeReady.parse(matcher.group(1)), launchToReadyMs);
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
        return false;
    }

    public TunnelLink openLink(final String pcapName)
    {
        throw new UnsupportedOperationException("a container peer's rxe NIC sits on a Docker bridge; the tunnel " +
            "link only reaches QEMU guests");
    }

    protected int hostPortFor(final int guestPort)
    {
        return container.getMappedPort(guestPort);
    }

    public String tunnelSpec(final String pcapName, final double loss, final long seed)
    {
        throw new UnsupportedOperationException("a container peer has no dgram tunnel; use the udp or pcap link");
    }

    public String hostAddressForGuest(final int hostPort)
    {
        // Testcontainers' port-forwarding sidecar makes host ports reachable under this name.
        Testcontainers.exposeHostPorts(hostPort);
        return "host.testcontainers.internal:" + hostPort;
    }

    public synchronized Result run(final String command, final Duration timeout) throws IOException
    {
        if (closed)
        {
            throw new IOException("rxe peer container is stopped");
        }
        try
        {
            final Container.ExecResult result = container.execInContainer(
                "timeout", Long.toString(Math.max(1, timeout.toSeconds())), "sh", "-c", command + " 2>&1");
            if (124 == result.getExitCode())
            {
                throw new AssertionError("'" + command + "' did not finish within " + timeout + "; output so far:\n" +
                    result.getStdout());
            }
            return new Result(result.getExitCode(), result.getStdout() + result.getStderr());
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted running '" + command + "'", ex);
        }
    }

    public synchronized void close()
    {
        if (!closed)
        {
            closed = true;
            container.close();
        }
    }

    private static Integer[] toIntegers(final int[] ports)
    {
        final Integer[] result = new Integer[ports.length];
        for (int i = 0; i < ports.length; i++)
        {
            result[i] = ports[i];
        }
        return result;
    }
}
