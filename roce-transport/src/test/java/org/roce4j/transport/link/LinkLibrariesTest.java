package org.roce4j.transport.link;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The probes name classes that exist (here, where the libraries are present) and a missing one is named clearly. */
class LinkLibrariesTest
{
    @Test
    void theProbeClassesExistWhereTheLibrariesArePresent()
    {
        assertTrue(LinkLibraries.present(LinkLibraries.NETTY_PROBE), LinkLibraries.NETTY_PROBE);
        assertTrue(LinkLibraries.present(LinkLibraries.PCAP4J_PROBE), LinkLibraries.PCAP4J_PROBE);
        assertDoesNotThrow(LinkLibraries::requireUdp);
        assertDoesNotThrow(LinkLibraries::requirePcap);
    }

    @Test
    void aMissingLibraryIsNamedWithTheDependencyThatBringsIt()
    {
        final IllegalStateException ex = assertThrows(IllegalStateException.class,
            () -> LinkLibraries.require("udp", "io.netty.NoSuchClass", "Netty 4.2"));
        assertEquals("the udp link needs Netty 4.2, which is not on the class path: roce-transport declares it " +
            "optional so that in-memory programs do without it; add the dependency org.roce4j:roce-links (type pom) " +
            "(roce-cli has it)", ex.getMessage());
    }
}
