package org.roce4j.conform.dut;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.function.ToIntFunction;

import org.roce4j.conform.Scenario;

/**
 * Where a remote DUT's tool loops are and what they run: its control address, the port each tool's loop listens on,
 * and the device and GID index the loops name (for the commands the runner prints).
 *
 * @param server      the DUT's control address (TCP), as for {@code roce perf}.
 * @param basePort    the port ib_write_bw's loop listens on in the DUT; each other tool's loop listens on
 *                    base + its offset.
 * @param ports       the TCP port to connect to for each tool (the base port + the tool's offset, or a forwarded
 *                    port).
 * @param device      the DUT's RDMA device, for the printed commands ({@code rxe0}, {@code mlx5_0}).
 * @param gidIndex    the DUT's GID index, for the printed commands.
 * @param connectFor  how long a connection is retried while the loop restarts its tool.
 * @param waitFloorNs the shortest wait for a DUT's answer (and the shortest silence watched for): a real DUT, and
 *                    an emulated one above all, answers in its own time, not within the catalogue's 1 ms.
 * @param listenPort  the first port roce4j listens on for the DUT's client loops (the DUT as requester): each client
 *                    tool connects to this + its offset; {@code ports} gives the port actually bound.
 * @param peerHost    roce4j's control address as the DUT reaches it, for the printed client loops.
 */
public record RemoteDutConfig(
    String server, int basePort, ToIntFunction<RemoteTool> ports, String device, int gidIndex, Duration connectFor,
    long waitFloorNs, int listenPort, String peerHost)
{
    /** perftest's default control port (DEF_PORT): ib_write_bw's loop; the other tools take the next ports. */
    public static final int DEFAULT_PORT = 18515;
    /** The default shortest wait for an answer: 50 ms. */
    public static final long DEFAULT_WAIT_FLOOR_NS = 50_000_000L;
    /**
     * The first port roce4j listens on for the DUT's client loops: perftest's default + 10, clear of the server loops'
     * ports (a DUT reached through port forwarding on this host has those bound here).
     */
    public static final int DEFAULT_LISTEN_PORT = DEFAULT_PORT + 10;
    /** The printed client loops' placeholder for roce4j's address when none is given. */
    public static final String PEER_HOST_PLACEHOLDER = "ROCE4J_IP";

    /**
     * @throws NullPointerException when a field is missing.
     */
    public RemoteDutConfig
    {
        Objects.requireNonNull(server, "server");
        Objects.requireNonNull(ports, "ports");
        Objects.requireNonNull(device, "device");
        Objects.requireNonNull(connectFor, "connectFor");
        Objects.requireNonNull(peerHost, "peerHost");
    }

    /**
     * A configuration for the server loops, with roce4j listening for client loops on {@link #DEFAULT_LISTEN_PORT} +
     * each client tool's offset.
     *
     * @param server      the DUT's control address.
     * @param basePort    the port of ib_write_bw's server loop.
     * @param ports       the TCP port of each tool (a server loop's to connect to, a client loop's to listen on).
     * @param device      the DUT's RDMA device.
     * @param gidIndex    its GID index.
     * @param connectFor  how long a connection is retried (or waited for).
     * @param waitFloorNs the shortest wait for a DUT's answer.
     */
    public RemoteDutConfig(final String server, final int basePort, final ToIntFunction<RemoteTool> ports,
        final String device, final int gidIndex, final Duration connectFor, final long waitFloorNs)
    {
        this(server, basePort, ports, device, gidIndex, connectFor, waitFloorNs, DEFAULT_LISTEN_PORT,
            PEER_HOST_PLACEHOLDER);
    }

    /**
     * @param server   the DUT's control address.
     * @param basePort the port of ib_write_bw's loop; each other tool listens on base + its offset.
     * @param device   the DUT's RDMA device.
     * @param gidIndex its GID index.
     * @return the configuration, with a 30 s connection retry and the default wait floor.
     */
    public static RemoteDutConfig of(final String server, final int basePort, final String device,
        final int gidIndex)
    {
        return new RemoteDutConfig(server, basePort, tool -> (tool.client() ? DEFAULT_LISTEN_PORT : basePort) +
            tool.portOffset(), device, gidIndex, Duration.ofSeconds(30), DEFAULT_WAIT_FLOOR_NS);
    }

    /**
     * @param port the first port roce4j listens on for the DUT's client loops.
     * @param host roce4j's control address as the DUT reaches it (printed in the client loops).
     * @return this configuration with client loops connecting to {@code host:port} + each tool's offset.
     */
    public RemoteDutConfig withListener(final int port, final String host)
    {
        final ToIntFunction<RemoteTool> servers = ports;
        return new RemoteDutConfig(server, basePort, tool -> tool.client() ? port + tool.portOffset() :
            servers.applyAsInt(tool), device, gidIndex, connectFor, waitFloorNs, port, host);
    }

    /**
     * @param floorNs the shortest wait for a DUT's answer, nanoseconds.
     * @return this configuration with that wait floor.
     */
    public RemoteDutConfig withWaitFloorNs(final long floorNs)
    {
        return new RemoteDutConfig(server, basePort, ports, device, gidIndex, connectFor, floorNs, listenPort,
            peerHost);
    }

    /**
     * @param tool a tool.
     * @return the loop the DUT runs for it: a server loop on the port it listens on there (the base port + its offset;
     *     a port forwarded to it may differ), a client loop towards roce4j's listener.
     */
    public String loop(final RemoteTool tool)
    {
        return tool.client() ? tool.loop(device, gidIndex, listenPort + tool.portOffset(), peerHost) :
            tool.loop(device, gidIndex, basePort + tool.portOffset());
    }

    /**
     * @param scenario a scenario.
     * @return what the DUT must run for it: its tool's loop, or why none serves it.
     */
    public String needs(final Scenario scenario)
    {
        final RemoteTool tool = RemoteTool.forScenario(scenario);
        return null == tool ? "no loop: " + RemoteTool.requesterGap(scenario.name()) : loop(tool);
    }

    /**
     * @param tool a tool.
     * @return e.g. {@code ib_write_bw at 10.0.0.2:18515}, or for a client loop
     *     {@code ib_write_bw's client loop connecting to port 18525 here}.
     */
    public String describe(final RemoteTool tool)
    {
        return tool.client() ? String.format(Locale.ROOT, "%s's client loop connecting to port %d here",
            tool.command(), ports.applyAsInt(tool)) :
            String.format(Locale.ROOT, "%s at %s:%d", tool.command(), server, ports.applyAsInt(tool));
    }
}
