package org.roce4j.wire.header;

import java.nio.ByteBuffer;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.addr.Mac;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class NeighborDiscoveryHeaderTest
{
    private static final Gid SOURCE = Gid.parse("fe80::ff:fe00:1");
    private static final Gid TARGET = Gid.parse("fd00:77::2");
    private static final Gid GROUP = Gid.parse("ff02::1:ff00:2");
    private static final long MAC = Mac.parse("02:00:00:00:00:01");

    private final UnsafeBuffer buffer = new UnsafeBuffer(new byte[64]);
    private final NeighborDiscoveryHeader nd = new NeighborDiscoveryHeader().wrap(buffer, 0);

    @Test
    void writesASolicitationWithItsSourceLinkLayerAddress()
    {
        final int length = nd.neighborSolicitation(TARGET.high(), TARGET.low(), MAC);
        assertEquals(32, length, "24 bytes and one 8-byte option");
        assertEquals(NeighborDiscoveryHeader.TYPE_NEIGHBOR_SOLICITATION, nd.type());
        assertEquals(0, nd.code());
        assertEquals(TARGET, new Gid(nd.targetHigh(), nd.targetLow()));
        assertEquals(MAC, nd.linkLayerOption(length, NeighborDiscoveryHeader.OPTION_SOURCE_LINK_LAYER));
        assertEquals(Mac.NONE, nd.linkLayerOption(length, NeighborDiscoveryHeader.OPTION_TARGET_LINK_LAYER));
        assertEquals(1, buffer.getByte(24), "option type 1");
        assertEquals(1, buffer.getByte(25), "option length 1 (8 bytes)");
    }

    @Test
    void checksumCoversThePseudoHeaderAsRfc4443Says()
    {
        final int length = nd.neighborAdvertisement(
            NeighborDiscoveryHeader.FLAG_SOLICITED | NeighborDiscoveryHeader.FLAG_OVERRIDE, TARGET.high(),
            TARGET.low(), MAC);
        nd.updateChecksum(TARGET.high(), TARGET.low(), SOURCE.high(), SOURCE.low(), length);
        assertEquals(literalChecksum(TARGET, SOURCE, length), nd.checksum(), "against a byte-by-byte reference");
        assertTrue(InternetChecksum.verifies(nd.sum(TARGET.high(), TARGET.low(), SOURCE.high(), SOURCE.low(),
            length)));
        assertFalse(InternetChecksum.verifies(nd.sum(SOURCE.high(), SOURCE.low(), GROUP.high(), GROUP.low(),
            length)), "another pseudo-header does not verify");
        assertEquals(0x6000_0000, nd.flags(), "S and O");
    }

    @Test
    void optionOfLengthZeroMakesTheMessageInvalid()
    {
        final int length = nd.neighborSolicitation(TARGET.high(), TARGET.low(), MAC);
        buffer.putByte(25, (byte)0);
        assertEquals(NeighborDiscoveryHeader.MALFORMED_OPTIONS,
            nd.linkLayerOption(length, NeighborDiscoveryHeader.OPTION_SOURCE_LINK_LAYER));
        buffer.putByte(25, (byte)2);
        assertEquals(NeighborDiscoveryHeader.MALFORMED_OPTIONS,
            nd.linkLayerOption(length, NeighborDiscoveryHeader.OPTION_SOURCE_LINK_LAYER), "runs past the message");
        assertEquals(Mac.NONE, nd.linkLayerOption(24, NeighborDiscoveryHeader.OPTION_SOURCE_LINK_LAYER),
            "no options at all");
    }

    /**
     * RFC 4443 2.3 done the plain way: pseudo-header and message in one byte array, summed 16 bits at a time.
     */
    private int literalChecksum(final Gid source, final Gid destination, final int length)
    {
        final ByteBuffer all = ByteBuffer.allocate(40 + length);
        all.putLong(source.high()).putLong(source.low()).putLong(destination.high()).putLong(destination.low());
        all.putInt(length).putInt(NeighborDiscoveryHeader.NEXT_HEADER_ICMPV6);
        for (int i = 0; i < length; i++)
        {
            all.put(2 == i || 3 == i ? 0 : buffer.getByte(i));
        }
        long sum = 0;
        for (int i = 0; i < all.capacity(); i += 2)
        {
            sum += ((all.get(i) & 0xFF) << 8) | (all.get(i + 1) & 0xFF);
        }
        while (0 != (sum >>> 16))
        {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        return (int)(~sum & 0xFFFF);
    }
}
