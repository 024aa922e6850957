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
 */
public record RemoteDutConfig(
    String server, int basePort, ToIntFunction<RemoteTool> ports, String device, int gidIndex, Duration connectFor,
    long waitFloorNs)
{
    /** perftest's default control port (DEF_PORT): ib_write_bw's loop; the other tools take the next ports. */
    public static final int DEFAULT_PORT = 18515;
    /** The default shortest wait for an answer: 50 ms. */
    public static final long DEFAULT_WAIT_FLOOR_NS = 50_000_000L;

    /**
     * @throws NullPointerException when a field is missing.
     */
    public RemoteDutConfig
    {
        Objects.requireNonNull(server, "server");
        Objects.requireNonNull(ports, "ports");
        Objects.requireNonNull(device, "device");
        Objects.requireNonNull(connectFor, "connectFor");
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
        return new RemoteDutConfig(server, basePort, tool -> basePort + tool.portOffset(), device, gidIndex,
            Duration.ofSeconds(30), DEFAULT_WAIT_FLOOR_NS);
    }

    /**
     * @param floorNs the shortest wait for a DUT's answer, nanoseconds.
     * @return this configuration with that wait floor.
     */
    public RemoteDutConfig withWaitFloorNs(final long floorNs)
    {
        return new RemoteDutConfig(server, basePort, ports, device, gidIndex, connectFor, floorNs);
    }

    /**
     * @param tool a tool.
     * @return the loop the DUT runs for it, on the port it listens on there (the base port + its offset; a port
     *     forwarded to it may differ).
     */
    public String loop(final RemoteTool tool)
    {
        return tool.loop(device, gidIndex, basePort + tool.portOffset());
    }

    /**
     * @param scenario a scenario.
     * @return what the DUT must run for it: its tool's loop, or why none serves it.
     */
    public String needs(final Scenario scenario)
    {
        final RemoteTool tool = RemoteTool.forScenario(scenario);
        return null == tool ? "no server loop (the DUT as requester is not implemented yet)" : loop(tool);
    }

    /**
     * @param tool a tool.
     * @return e.g. {@code ib_write_bw at 10.0.0.2:18515}.
     */
    public String describe(final RemoteTool tool)
    {
        return String.format(Locale.ROOT, "%s at %s:%d", tool.command(), server, ports.applyAsInt(tool));
    }
}
