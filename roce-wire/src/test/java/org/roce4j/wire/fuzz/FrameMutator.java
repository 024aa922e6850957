package org.roce4j.wire.fuzz;

import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.wire.Icrc;
import org.roce4j.wire.header.BthHeader;
import org.roce4j.wire.header.EthernetHeader;
import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.header.Ipv6Header;
import org.roce4j.wire.header.UdpHeader;
import org.roce4j.wire.test.SeededRandom;

/**
 * Mutates a valid Ethernet frame in place: bit flips, byte sets, truncation, junk appended, lies in the length
 * fields (IPv4 total length and IHL, IPv6 payload length, UDP length, PadCnt) and random opcodes. Half the time the
 * IPv4 checksum and the ICRC are recomputed afterwards, so mutated frames also reach the checks behind them.
 */
final class FrameMutator
{
    /** Mutation kinds, for the statistics a test prints. */
    enum Kind
    {
        BIT_FLIPS, BYTE_SETS, TRUNCATE, EXTEND, IPV4_TOTAL_LENGTH, IPV4_IHL, IPV6_PAYLOAD_LENGTH, UDP_LENGTH,
        PAD_COUNT, OPCODE
    }

    private static final int[] INTERESTING = {0x00, 0x01, 0x7F, 0x80, 0xFE, 0xFF, 0x05, 0x40, 0x11, 0x12, 0xB7};
    private static final Kind[] KINDS = Kind.values();

    private final SeededRandom random;
    private final UnsafeBuffer view = new UnsafeBuffer(new byte[0]);
    private final Icrc icrc = new Icrc();
    private final Ipv4Header ipv4 = new Ipv4Header();
    private final long[] kindCounts = new long[KINDS.length];

    FrameMutator(final SeededRandom random)
    {
        this.random = random;
    }

    /**
     * @param frame  bytes; room for at least length + 64 bytes.
     * @param length of the valid frame in the array.
     * @return the length of the mutated frame.
     */
    int mutate(final byte[] frame, final int length)
    {
        final SeededRandom r = random;
        int size = length;
        final int mutations = 1 + (0 == r.nextInt(4) ? r.nextInt(3) : 0);
        for (int m = 0; m < mutations; m++)
        {
            final Kind kind = KINDS[r.nextInt(KINDS.length)];
            kindCounts[kind.ordinal()]++;
            size = apply(kind, frame, size);
        }
        if (r.nextBoolean())
        {
            fixChecksums(frame, size);
        }
        return size;
    }

    long count(final Kind kind)
    {
        return kindCounts[kind.ordinal()];
    }

    private int apply(final Kind kind, final byte[] frame, final int size)
    {
        final SeededRandom r = random;
        final int ip = ipOffset(frame, size);
        switch (kind)
        {
            case BIT_FLIPS:
            {
                final int flips = 1 + r.nextInt(8);
                for (int i = 0; i < flips && size > 0; i++)
                {
                    frame[r.nextInt(size)] ^= (byte)(1 << r.nextInt(8));
                }
                return size;
            }
            case BYTE_SETS:
            {
                final int sets = 1 + r.nextInt(4);
                for (int i = 0; i < sets && size > 0; i++)
                {
                    final int value = r.nextBoolean() ? r.nextInt(256) : INTERESTING[r.nextInt(INTERESTING.length)];
                    frame[r.nextInt(size)] = (byte)value;
                }
                return size;
            }
            case TRUNCATE:
                return size > 0 ? r.nextInt(size) : 0;
            case EXTEND:
            {
                final int extra = 1 + r.nextInt(64);
                final int room = Math.min(extra, frame.length - size);
                for (int i = 0; i < room; i++)
                {
                    frame[size + i] = (byte)r.nextInt(256);
                }
                return size + room;
            }
            case IPV4_TOTAL_LENGTH:
                if (ip >= 0 && size >= ip + Ipv4Header.LENGTH)
                {
                    putShort(frame, ip + Ipv4Header.TOTAL_LENGTH_OFFSET,
                        lie(getShort(frame, ip + Ipv4Header.TOTAL_LENGTH_OFFSET), 0xFFFF));
                }
                return size;
            case IPV4_IHL:
                if (ip >= 0 && size > ip)
                {
                    frame[ip] = (byte)((frame[ip] & 0xF0) | r.nextInt(16));
                }
                return size;
            case IPV6_PAYLOAD_LENGTH:
                if (ip >= 0 && size >= ip + Ipv6Header.LENGTH)
                {
                    putShort(frame, ip + Ipv6Header.PAYLOAD_LENGTH_OFFSET,
                        lie(getShort(frame, ip + Ipv6Header.PAYLOAD_LENGTH_OFFSET), 0xFFFF));
                }
                return size;
            case UDP_LENGTH:
            {
                final int udp = udpOffset(frame, size, ip);
                if (udp >= 0 && size >= udp + UdpHeader.LENGTH)
                {
                    putShort(frame, udp + UdpHeader.LENGTH_OFFSET,
                        lie(getShort(frame, udp + UdpHeader.LENGTH_OFFSET), 0xFFFF));
                }
                return size;
            }
            case PAD_COUNT:
            {
                final int udp = udpOffset(frame, size, ip);
                final int flags = udp + UdpHeader.LENGTH + BthHeader.FLAGS_OFFSET;
                if (udp >= 0 && size > flags)
                {
                    frame[flags] = (byte)((frame[flags] & ~BthHeader.PAD_MASK) | (r.nextInt(4) << 4));
                }
                return size;
            }
            case OPCODE:
            {
                final int udp = udpOffset(frame, size, ip);
                final int bth = udp + UdpHeader.LENGTH;
                if (udp >= 0 && size > bth)
                {
                    frame[bth] = (byte)r.nextInt(256);
                }
                return size;
            }
            default:
                throw new IllegalStateException(kind.name());
        }
    }

    private int lie(final int value, final int max)
    {
        final SeededRandom r = random;
        switch (r.nextInt(4))
        {
            case 0:
                return (value + r.nextInt(-8, 9)) & max;
            case 1:
                return r.nextInt(max + 1);
            case 2:
                return r.pick(0, 1, 7, 8, 19, 20, 27, 28, max);
            default:
                return (value + r.nextInt(-64, 65)) & max;
        }
    }

    /** Recompute the IPv4 header checksum and the ICRC where the frame still has the headers for it. */
    private void fixChecksums(final byte[] frame, final int size)
    {
        final int ip = ipOffset(frame, size);
        if (ip < 0)
        {
            return;
        }
        view.wrap(frame, 0, size);
        final int version = (frame[ip] & 0xFF) >>> 4;
        final int ipHeaderLength;
        final int end;
        if (4 == version && size >= ip + Ipv4Header.LENGTH)
        {
            ipHeaderLength = (frame[ip] & 0xF) * 4;
            if (ipHeaderLength < Ipv4Header.LENGTH || size < ip + ipHeaderLength)
            {
                return;
            }
            ipv4.wrap(view, ip).updateChecksum();
            end = ip + getShort(frame, ip + Ipv4Header.TOTAL_LENGTH_OFFSET);
        }
        else if (6 == version && size >= ip + Ipv6Header.LENGTH)
        {
            ipHeaderLength = Ipv6Header.LENGTH;
            end = ip + Ipv6Header.LENGTH + getShort(frame, ip + Ipv6Header.PAYLOAD_LENGTH_OFFSET);
        }
        else
        {
            return;
        }
        final int icrcOffset = end - Icrc.LENGTH;
        if (icrcOffset >= ip + ipHeaderLength + UdpHeader.LENGTH + BthHeader.LENGTH && end <= size)
        {
            icrc.seal(view, ip, version, ipHeaderLength, icrcOffset);
        }
    }

    private static int ipOffset(final byte[] frame, final int size)
    {
        if (size < EthernetHeader.LENGTH)
        {
            return -1;
        }
        final int type = getShort(frame, EthernetHeader.TYPE_OFFSET);
        if (EthernetHeader.TPID_8021Q == type)
        {
            return size >= EthernetHeader.VLAN_LENGTH ? EthernetHeader.VLAN_LENGTH : -1;
        }
        return EthernetHeader.LENGTH;
    }

    private static int udpOffset(final byte[] frame, final int size, final int ip)
    {
        if (ip < 0 || size <= ip)
        {
            return -1;
        }
        final int version = (frame[ip] & 0xFF) >>> 4;
        return 6 == version ? ip + Ipv6Header.LENGTH : ip + Math.max(5, frame[ip] & 0xF) * 4;
    }

    private static int getShort(final byte[] frame, final int at)
    {
        return ((frame[at] & 0xFF) << 8) | (frame[at + 1] & 0xFF);
    }

    private static void putShort(final byte[] frame, final int at, final int value)
    {
        frame[at] = (byte)(value >>> 8);
        frame[at + 1] = (byte)value;
    }
}
