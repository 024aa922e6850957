package org.roce4j.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.concurrent.Callable;

import org.roce4j.cli.devinfo.Devinfo;
import org.roce4j.transport.link.Link;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.link.memory.MemoryFabric;
import org.roce4j.verbs.DeviceOptions;
import org.roce4j.verbs.ProgressGroup;
import org.roce4j.verbs.RdmaDevice;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code roce devinfo}: rdma-core's ibv_devinfo (libibverbs/examples/devinfo.c) for the roce4j device on a link, with
 * its options ({@code -d -i -l -v}), output layout and exit codes (see {@link Devinfo}). The device is opened in
 * INVOKER mode with a progress group of its own and never driven: its attributes, ports and GIDs are read, nothing
 * is sent. Exit codes as ibv_devinfo's: 0; 1 for an {@code -i} that is not a positive number (after the usage) and
 * for a device that cannot be opened; 4 for a port the device does not have; 255 (devinfo's -1) for an unknown
 * option, a malformed {@code --link}, a {@code -d} that names another device, or a {@code -l} whose link cannot open.
 */
@Command(
    name = "devinfo",
    exitCodeOnInvalidInput = DevinfoCommand.EXIT_MINUS_ONE,
    exitCodeOnExecutionException = DevinfoCommand.EXIT_MINUS_ONE,
    description = {
        "Print a roce4j device's attributes, ports and GID table, like rdma-core's ibv_devinfo.",
        "The device is the one a roce4j program opens on --link; with --link memory (the default) it is a device " +
            "on one port (" + DevinfoCommand.MEMORY_IP + ", IP MTU 1500) of an in-process fabric, and a note on " +
            "stderr says so. Values " +
            "roce4j does not have print as ibv_devinfo prints a zero. roce4j's additions under -v: max_inline_data " +
            "(libibverbs reports it per QP) and a final counters: section with every counter of the device.",
        "Exit codes as ibv_devinfo: 0; 1 -i not a positive number, or the device cannot open; 4 no such port; 255 " +
            "unknown option, malformed --link, -d names another device, -l cannot open the link."})
public final class DevinfoCommand implements Callable<Integer>
{
    /** ibv_devinfo's {@code return -1} as an exit status. */
    static final int EXIT_MINUS_ONE = 255;
    /** ibv_devinfo's {@code return 1}: a bad -i (after the usage), or "Failed to open device". */
    static final int EXIT_FAILURE = 1;
    /** The address of the one port --link memory opens. */
    static final String MEMORY_IP = "192.168.77.1";
    /** The MAC of that port. */
    static final String MEMORY_MAC = "02:00:00:00:00:01";
    /** The IP MTU of that port: a 1500-byte Ethernet, as rxe on a default netdev (active MTU 1024). */
    static final int MEMORY_MTU = 1500;

    @Spec
    private CommandSpec spec;

    @Option(names = {"-d", "--ib-dev"}, paramLabel = "<dev>", description = "use IB device <dev> (default all " +
        "devices): the device's name, hca_id")
    private String ibDev;

    @Option(names = {"-i", "--ib-port"}, paramLabel = "<port>", description = "use port <port> of IB device (default " +
        "all ports; a roce4j device has port 1)")
    private String ibPort;

    @Option(names = {"-l", "--list"}, description = "print only the IB devices names")
    private boolean list;

    @Option(names = {"-v", "--verbose"}, description = "print all the attributes of the IB device(s), its GID " +
        "table and (roce4j) its counters")
    private boolean verbose;

    @Mixin
    private LinkOption link;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help")
    private boolean help;

    /**
     * @return ibv_devinfo's exit code.
     */
    public Integer call()
    {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        final int port = null == ibPort ? 0 : strtol(ibPort);
        if (null != ibPort && port <= 0)
        {
            usage(out);
            return EXIT_FAILURE;
        }
        final boolean memory = link.isMemory();
        final MemoryFabric fabric = memory ? new MemoryFabric() : null;
        try
        {
            if (memory)
            {
                err.println("roce devinfo: --link memory opens one port (" + MEMORY_IP + ") of an in-process " +
                    "fabric; for a device on a network give --link udp:IP (or tunnel:, pcap:)");
                err.flush();
            }
            return show(open(fabric), port, out, err);
        }
        catch (final IllegalArgumentException ex)
        {
            // A malformed --link: getopt's unknown option, devinfo's -1.
            return report(err, "roce devinfo: " + ex.getMessage(), EXIT_MINUS_ONE);
        }
        catch (final IOException | IllegalStateException ex)
        {
            return list ? report(err, "Failed to get IB devices list: " + ex.getMessage(), EXIT_MINUS_ONE) :
                report(err, "Failed to open device: " + ex.getMessage(), EXIT_FAILURE);
        }
        finally
        {
            if (null != fabric)
            {
                fabric.close();
            }
        }
    }

    private RdmaDevice open(final MemoryFabric fabric) throws IOException
    {
        final DeviceOptions options = DeviceOptions.invoker().progressGroup(new ProgressGroup());
        if (null != fabric)
        {
            return RdmaDevice.open(fabric.attach(LinkAddress.of(MEMORY_MAC, MEMORY_IP), MEMORY_MTU), options);
        }
        final Link opened = link.open(spec.commandLine().getErr());
        try
        {
            return RdmaDevice.open(opened, options);
        }
        catch (final RuntimeException ex)
        {
            opened.close();
            throw ex;
        }
    }

    private int show(final RdmaDevice opened, final int port, final PrintWriter out, final PrintWriter err)
    {
        try (RdmaDevice device = opened)
        {
            if (list)
            {
                // devinfo's -l: the device list, one device here.
                out.println("1 HCA found:");
                out.println("\t" + device.name());
                out.println();
                out.flush();
                return 0;
            }
            if (null != ibDev && !ibDev.equals(device.name()))
            {
                return report(err, "IB device '" + ibDev + "' wasn't found", EXIT_MINUS_ONE);
            }
            return new Devinfo(out, err, verbose).printHcaCap(device, port);
        }
    }

    private static int report(final PrintWriter err, final String line, final int exitCode)
    {
        err.println(line);
        err.flush();
        return exitCode;
    }

    /**
     * devinfo reads -i with {@code strtol(optarg, NULL, 0)}: decimal, 0x hex or 0 octal, and 0 for text that is no
     * number (which then fails its {@code ib_port <= 0} check).
     */
    static int strtol(final String text)
    {
        try
        {
            return Integer.decode(text.trim());
        }
        catch (final NumberFormatException ex)
        {
            return 0;
        }
    }

    /** devinfo's usage(), on stdout. */
    private static void usage(final PrintWriter out)
    {
        out.println("Usage: roce devinfo             print the ca attributes");
        out.println();
        out.println("Options:");
        out.println("  -d, --ib-dev=<dev>     use IB device <dev> (default all devices)");
        out.println("  -i, --ib-port=<port>   use port <port> of IB device (default all ports)");
        out.println("  -l, --list             print only the IB devices names");
        out.println("  -v, --verbose          print all the attributes of the IB device(s)");
        out.println("  --link=SPEC            roce4j: " + LinkOption.DESCRIPTION);
        out.flush();
    }
}
