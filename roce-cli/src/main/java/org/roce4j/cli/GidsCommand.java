package org.roce4j.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;

import org.roce4j.transport.link.Link;
import org.roce4j.transport.link.LinkSpecs;
import org.roce4j.transport.link.memory.MemoryFabric;
import org.roce4j.verbs.DeviceOptions;
import org.roce4j.verbs.RdmaDevice;
import org.roce4j.wire.addr.Gid;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code roce gids [--link SPEC]}: the GID table of a device opened on a link, as rdma-core's {@code show_gids}
 * prints rxe's: index 0 the link-local GID of the MAC, then one IPv4-mapped GID per IPv4 address, then each global
 * IPv6 address, with the IPv4 column filled for IPv4-mapped GIDs. With {@code --link memory} (the default) it lists
 * the two in-process ports that pingpong, perf and rping use. Exit code 0, or 1 when the link cannot be opened.
 */
@Command(
    name = "gids",
    mixinStandardHelpOptions = true,
    description = {
        "List the GID table of a device on a link as show_gids lists rxe's: 0 the link-local GID, then one " +
            "IPv4-mapped GID per IPv4 address, then each global IPv6 address (the indexes -g and -x take).",
        "Exit code 0, 1 when the link cannot be opened."})
public final class GidsCommand implements Callable<Integer>
{
    /** Exit code when the link cannot be opened. */
    static final int EXIT_FAILURE = 1;
    /** RoCE version column: every roce4j GID is RoCEv2. */
    private static final String VERSION = "v2";

    @Spec
    private CommandSpec spec;

    @Option(names = "--link", paramLabel = "SPEC", description = LinkOption.DESCRIPTION)
    private String link = LinkSpecs.MEMORY;

    /**
     * @return the exit code.
     */
    public Integer call()
    {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        out.println("DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV");
        out.println("---\t----\t-----\t---\t\t\t\t\t------------  \t---\t---");
        int found = 0;
        try
        {
            if (LinkSpecs.isMemory(link))
            {
                try (MemoryFabric fabric = new MemoryFabric())
                {
                    for (final Link port : List.<Link>of(fabric.attach(InProcessPorts.SERVER, 1500),
                        fabric.attach(InProcessPorts.CLIENT, 1500)))
                    {
                        found += list(port, out);
                    }
                }
            }
            else
            {
                found = list(LinkSpecs.open(link), out);
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            out.flush();
            err.println("roce gids: --link " + link + ": " + ex.getMessage());
            err.flush();
            return EXIT_FAILURE;
        }
        out.println("n_gids_found=" + found);
        out.flush();
        return 0;
    }

    private static int list(final Link link, final PrintWriter out)
    {
        try (RdmaDevice device = RdmaDevice.open(link, DeviceOptions.invoker()))
        {
            final int length = device.queryPort().gidTblLen();
            for (int i = 0; i < length; i++)
            {
                final Gid gid = device.queryGid(i);
                final String ipv4 = gid.isIpv4Mapped() ? gid.toString().substring("::ffff:".length()) : "";
                out.println(device.name() + "\t1\t" + i + "\t" + gid.toSysfsString() + "\t" + ipv4 + "  \t" + VERSION +
                    "\t" + link.name());
            }
            return length;
        }
    }
}
