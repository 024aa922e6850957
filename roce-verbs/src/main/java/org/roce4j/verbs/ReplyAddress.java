package org.roce4j.verbs;

import java.nio.ByteOrder;

import org.agrona.DirectBuffer;
import org.roce4j.ib.AhAttributes;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.transport.provider.DeviceOps;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.header.Ipv4Header;

/**
 * The address that answers the sender of a UD datagram, read from the network header area of its receive buffer:
 * the body of {@link RdmaDevice#initAhFromWc} (ibv_init_ah_from_wc).
 */
final class ReplyAddress
{
    private ReplyAddress()
    {
    }

    /**
     * See {@link RdmaDevice#initAhFromWc}.
     */
    static AhAttributes fill(
        final DeviceOps device, final WorkCompletion wc, final DirectBuffer buffer, final int offset,
        final AhAttributes out)
    {
        ProgressGroup.requireNonNull(wc, "wc");
        ProgressGroup.requireNonNull(buffer, "buffer");
        ProgressGroup.requireNonNull(out, "out");
        if (!wc.hasGrh())
        {
            throw new IllegalArgumentException("the work completion has no GRH (IBV_WC_GRH): only successful UD " +
                "receive completions carry the sender's address");
        }
        final long destinationHigh;
        final long destinationLow;
        if (isIpv4NetworkHeader(buffer, offset))
        {
            // IPv4 header at byte 20: TOS at +1, source at +12, destination at +16.
            final int ipv4 = offset + WorkCompletion.GRH_BYTES - Ipv4Header.LENGTH;
            out.dgid(Gid.IPV4_MAPPED_HIGH, Gid.ipv4MappedLow(buffer.getInt(ipv4 + 12, ByteOrder.BIG_ENDIAN)))
                .trafficClass(buffer.getByte(ipv4 + 1) & 0xFF)
                .flowLabel(0);
            destinationHigh = Gid.IPV4_MAPPED_HIGH;
            destinationLow = Gid.ipv4MappedLow(buffer.getInt(ipv4 + 16, ByteOrder.BIG_ENDIAN));
        }
        else if (6 == (buffer.getByte(offset) & 0xFF) >>> 4)
        {
            // IPv6 header: version(4) traffic class(8) flow label(20), ..., source at +8, destination at +24.
            final int first = buffer.getInt(offset, ByteOrder.BIG_ENDIAN);
            out.dgid(buffer.getLong(offset + 8, ByteOrder.BIG_ENDIAN),
                    buffer.getLong(offset + 16, ByteOrder.BIG_ENDIAN))
                .trafficClass((first >>> 20) & 0xFF)
                .flowLabel(first & 0xF_FFFF);
            destinationHigh = buffer.getLong(offset + 24, ByteOrder.BIG_ENDIAN);
            destinationLow = buffer.getLong(offset + 32, ByteOrder.BIG_ENDIAN);
        }
        else
        {
            throw new IllegalArgumentException("the 40-byte network header area at offset " + offset + " holds " +
                "neither an IPv4 header (20 zero bytes, then version 4) nor an IPv6 header");
        }
        final int sgidIndex = device.gidIndexOf(destinationHigh, destinationLow);
        if (sgidIndex < 0)
        {
            throw new IllegalArgumentException("the packet was sent to " +
                new Gid(destinationHigh, destinationLow) + ", which is not in this device's GID table");
        }
        // libibverbs ibv_init_ah_from_wc: hop limit 0xFF for a reply.
        return out.sgidIndex(sgidIndex).hopLimit(0xFF).serviceLevel(0).portNum(RdmaDevice.PORT_NUM);
    }

    private static boolean isIpv4NetworkHeader(final DirectBuffer buffer, final int offset)
    {
        for (int i = 0; i < WorkCompletion.GRH_BYTES - Ipv4Header.LENGTH; i += 4)
        {
            if (0 != buffer.getInt(offset + i))
            {
                return false;
            }
        }
        return 4 == (buffer.getByte(offset + WorkCompletion.GRH_BYTES - Ipv4Header.LENGTH) & 0xFF) >>> 4;
    }
}
