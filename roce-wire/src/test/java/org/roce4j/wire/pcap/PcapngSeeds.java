package org.roce4j.wire.pcap;

import java.nio.ByteOrder;

/**
 * Hand-built pcapng files for tests outside this package (the fuzzer), made with {@link PcapngBuilder}.
 */
public final class PcapngSeeds
{
    /**
     * Public for the fuzz tests in another package.
     */
    public PcapngSeeds()
    {
    }

    /**
     * @param data a packet.
     * @return a little-endian file: two interfaces (ns and ms units), every packet block kind, a skipped block.
     */
    public byte[] twoInterfaces(final byte[] data)
    {
        return new PcapngBuilder()
            .section(ByteOrder.LITTLE_ENDIAN)
            .iface(LinkType.ETHERNET, 0, 9)
            .iface(LinkType.RAW, 1500, 3)
            .other(PcapngBuilder.NAME_RESOLUTION, 10)
            .enhanced(0, 1_700_000_000_123_456_789L, data, 60)
            .enhanced(1, 1_700_000_000_123L, data, data.length)
            .simple(data)
            .obsolete(1, 42L, data)
            .iface(LinkType.ETHERNET, 0, 0x80 | 10)
            .enhanced(2, 3L * 1024 + 512, data, data.length)
            .bytes();
    }

    /**
     * @param data a packet.
     * @return a big-endian file with one interface and two packets.
     */
    public byte[] bigEndian(final byte[] data)
    {
        return new PcapngBuilder()
            .section(ByteOrder.BIG_ENDIAN)
            .iface(LinkType.ETHERNET, 0, -1)
            .enhanced(0, 1, data, data.length)
            .simple(data)
            .bytes();
    }
}
