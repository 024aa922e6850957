package org.roce4j.transport.link;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Assumptions;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * What link tests need from the machine (root, libpcap, the ip tool, tshark), checked the project's way: when the
 * environment variable {@code ROCE4J_REQUIRE_TOOLS=1} is set (CI) a missing requirement fails the test, otherwise
 * the test is skipped with the reason.
 */
public final class TestEnvironment
{
    /** CAP_NET_ADMIN (linux/capability.h): namespaces, veth pairs, SO_RCVBUFFORCE. */
    private static final int CAP_NET_ADMIN = 12;
    /** CAP_NET_RAW (linux/capability.h): packet sockets. */
    private static final int CAP_NET_RAW = 13;
    /** CAP_SYS_ADMIN (linux/capability.h): setns into a network namespace. */
    private static final int CAP_SYS_ADMIN = 21;

    private TestEnvironment()
    {
    }

    /**
     * @return true when CI asked for every tool to be present.
     */
    public static boolean toolsRequired()
    {
        return "1".equals(System.getenv("ROCE4J_REQUIRE_TOOLS"));
    }

    /**
     * Fail (CI) or skip (elsewhere) unless a condition holds.
     *
     * @param condition what must hold.
     * @param reason    what is missing, for the message.
     */
    public static void require(final boolean condition, final String reason)
    {
        if (condition)
        {
            return;
        }
        if (toolsRequired())
        {
            fail("ROCE4J_REQUIRE_TOOLS=1 but " + reason);
        }
        Assumptions.abort(reason);
    }

    /**
     * Require the capabilities to create namespaces and veths, enter them and open packet sockets.
     */
    public static void requireNetworkAdmin()
    {
        final long caps = effectiveCapabilities();
        final long needed = (1L << CAP_NET_ADMIN) | (1L << CAP_NET_RAW) | (1L << CAP_SYS_ADMIN);
        require(caps >= 0 && needed == (caps & needed),
            "the test needs root (CAP_NET_ADMIN, CAP_NET_RAW, CAP_SYS_ADMIN); effective capabilities " +
            Long.toHexString(caps));
    }

    /**
     * Require libpcap to be loadable by Pcap4J.
     */
    public static void requireLibpcap()
    {
        String problem = null;
        try
        {
            org.pcap4j.core.Pcaps.libVersion();
        }
        catch (final LinkageError ex)
        {
            problem = ex.toString();
        }
        require(null == problem, "libpcap cannot be loaded (Debian: apt-get install libpcap0.8): " + problem);
    }

    /**
     * Require a command on the PATH.
     *
     * @param command such as {@code ip} or {@code tshark}.
     */
    public static void requireCommand(final String command)
    {
        require(null != which(command), "command '" + command + "' is not on the PATH");
    }

    /**
     * @param command name.
     * @return its path, or null.
     */
    public static Path which(final String command)
    {
        final String path = System.getenv("PATH");
        if (null == path)
        {
            return null;
        }
        for (final String dir : path.split(":"))
        {
            final Path candidate = Path.of(dir, command);
            if (Files.isExecutable(candidate))
            {
                return candidate;
            }
        }
        return null;
    }

    /**
     * @return the effective capability set from /proc/self/status, or -1.
     */
    public static long effectiveCapabilities()
    {
        try
        {
            for (final String line : Files.readAllLines(Path.of("/proc/self/status"), StandardCharsets.US_ASCII))
            {
                if (line.startsWith("CapEff:"))
                {
                    return Long.parseUnsignedLong(line.substring("CapEff:".length()).trim(), 16);
                }
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            return -1;
        }
        return -1;
    }
}
