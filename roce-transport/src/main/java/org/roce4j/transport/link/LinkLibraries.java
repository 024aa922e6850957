package org.roce4j.transport.link;

/**
 * The optional libraries of the links that reach real NICs. roce-transport declares Netty (udp link) and Pcap4J with
 * JNA (pcap link) optional, so a program on the in-memory fabric or the tunnel link pulls none of them; opening a udp
 * or pcap link without them fails here, before any of their classes is touched, with an error naming what to add
 * instead of a bare {@link NoClassDefFoundError} from deep inside the link.
 */
public final class LinkLibraries
{
    /** The one dependency that brings every link library (a pom, hence its type). */
    public static final String ARTIFACT = "org.roce4j:roce-links (type pom)";

    /** A class the udp link cannot run without: Netty's channel API (netty-transport). */
    static final String NETTY_PROBE = "io.netty.channel.Channel";
    /** A class the pcap link cannot run without: Pcap4J's handle (pcap4j-core, which brings JNA). */
    static final String PCAP4J_PROBE = "org.pcap4j.core.PcapHandle";

    private LinkLibraries()
    {
    }

    /**
     * Fail unless the udp link's library is on the class path.
     *
     * @throws IllegalStateException naming the missing library and the dependency that brings it.
     */
    public static void requireUdp()
    {
        require("udp", NETTY_PROBE, "Netty 4.2 (io.netty:netty-transport and its epoll/io_uring transports)");
    }

    /**
     * Fail unless the pcap link's library is on the class path.
     *
     * @throws IllegalStateException naming the missing library and the dependency that brings it.
     */
    public static void requirePcap()
    {
        require("pcap", PCAP4J_PROBE, "Pcap4J (org.pcap4j:pcap4j-core, which brings JNA)");
    }

    static void require(final String link, final String probeClass, final String library)
    {
        if (!present(probeClass))
        {
            throw new IllegalStateException("the " + link + " link needs " + library + ", which is not on the class " +
                "path: roce-transport declares it optional so that in-memory programs do without it; add the " +
                "dependency " + ARTIFACT + " (roce-cli has it)");
        }
    }

    static boolean present(final String className)
    {
        try
        {
            // initialize = false: only whether the class can be found, nothing of it runs.
            Class.forName(className, false, LinkLibraries.class.getClassLoader());
            return true;
        }
        catch (final ClassNotFoundException | LinkageError ex)
        {
            return false;
        }
    }
}
