package org.roce4j.wire.test;

import java.util.Arrays;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.roce4j.wire.ExtHeader;
import org.roce4j.wire.Icrc;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrameBuilder;
import org.roce4j.wire.header.AethHeader;

/**
 * Builds valid RoCEv2 frames of any opcode with random header fields and payload through {@link RoceFrameBuilder},
 * recording every field in a {@link FrameFields} so a test can check what a decoder reads back.
 *
 * <p>Random choices stay inside what real senders do where a decoder cares: TVer 0, UDP source port in the
 * dynamic range 0xC000..0xFFFF (as rxe; it also keeps scapy and tshark from guessing another protocol by port),
 * DestQP never 1 for UD (QP1 would make tshark decode a MAD), AETH syndromes of the ACK, RNR NAK and NAK types.
 */
public final class RandomFrames
{
    private final RoceFrameBuilder builder = new RoceFrameBuilder();
    /** Random bytes payloads are cut from; twice the largest payload a 16-bit IP length allows. */
    private static final int NOISE_LENGTH = 2 * 65536;

    private final SeededRandom random;
    private final byte[] noise = new byte[NOISE_LENGTH];
    private final byte[] scratch = new byte[NOISE_LENGTH];
    private int payloadStart;

    /**
     * @param random source of every field value.
     */
    public RandomFrames(final SeededRandom random)
    {
        this.random = random;
        random.nextBytes(noise);
    }

    /**
     * Build one frame.
     *
     * @param opcode        of the BTH.
     * @param ipVersion     4 or 6.
     * @param vlan          true for an 802.1Q tag.
     * @param payloadLength bytes of payload (0 for opcodes without payload).
     * @param buffer        to build into.
     * @param offset        of the Ethernet header.
     * @param fields        receives the values written.
     * @return the frame length.
     */
    public int build(
        final Opcode opcode,
        final int ipVersion,
        final boolean vlan,
        final int payloadLength,
        final MutableDirectBuffer buffer,
        final int offset,
        final FrameFields fields)
    {
        final SeededRandom r = random;
        fields.opcode = opcode;
        fields.ipVersion = ipVersion;
        fields.vlan = vlan;
        fields.destinationMac = r.nextLong() & 0xFEFF_FFFF_FFFFL;
        fields.sourceMac = r.nextLong() & 0xFEFF_FFFF_FFFFL;
        builder.wrap(buffer, offset);
        if (vlan)
        {
            fields.vlanPriority = r.nextInt(8);
            fields.vlanId = r.nextInt(1, 4095);
            builder.ethernet(fields.destinationMac, fields.sourceMac, fields.vlanPriority, fields.vlanId);
        }
        else
        {
            builder.ethernet(fields.destinationMac, fields.sourceMac);
        }
        fields.trafficClass = r.nextInt(256);
        fields.hopLimit = r.nextInt(1, 256);
        if (4 == ipVersion)
        {
            fields.ipv4Source = r.nextInt();
            fields.ipv4Destination = r.nextInt();
            fields.ipId = r.nextInt(65536);
            builder.ipv4(fields.ipv4Source, fields.ipv4Destination);
            builder.ipv4Header().tos(fields.trafficClass).ttl(fields.hopLimit).identification(fields.ipId);
        }
        else
        {
            fields.ipv6SourceHigh = r.nextLong();
            fields.ipv6SourceLow = r.nextLong();
            fields.ipv6DestinationHigh = r.nextLong();
            fields.ipv6DestinationLow = r.nextLong();
            fields.flowLabel = r.nextInt(1 << 20);
            builder.ipv6(fields.ipv6SourceHigh, fields.ipv6SourceLow, fields.ipv6DestinationHigh,
                fields.ipv6DestinationLow);
            builder.ipv6Header().versionClassFlow(fields.trafficClass, fields.flowLabel).hopLimit(fields.hopLimit);
        }
        fields.udpSourcePort = r.nextInt(0xC000, 0x10000);
        builder.udp(fields.udpSourcePort);

        fields.destQp = r.nextInt(2, 1 << 24);
        fields.psn = r.nextInt(1 << 24);
        builder.bth(opcode, fields.destQp, fields.psn);
        fields.solicitedEvent = r.nextBoolean();
        fields.migReq = r.nextBoolean();
        fields.pkey = r.nextInt(65536);
        fields.fecn = r.nextBoolean();
        fields.becn = r.nextBoolean();
        fields.ackReq = r.nextBoolean();
        builder.bthHeader()
            .solicitedEvent(fields.solicitedEvent)
            .migReq(fields.migReq)
            .pkey(fields.pkey)
            .fecn(fields.fecn)
            .becn(fields.becn)
            .ackReq(fields.ackReq);
        for (int i = 0; i < opcode.extHeaderCount(); i++)
        {
            fillExtensionHeader(opcode.extHeader(i), fields);
        }
        fields.payloadLength = payloadLength;
        fields.padCount = (-payloadLength) & 3;
        if (payloadLength > 0)
        {
            // A random window of a random block: fresh-looking payloads without a random call per byte.
            payloadStart = r.nextInt(NOISE_LENGTH - payloadLength + 1);
            buffer.putBytes(builder.payloadOffset(), noise, payloadStart, payloadLength);
        }
        builder.payloadLength(payloadLength);
        final int length = builder.finish();
        fields.frameLength = length;
        fields.icrc = Icrc.read(buffer, offset + length - Icrc.LENGTH);
        return length;
    }

    /**
     * @param buffer holding a frame's payload.
     * @param offset of the payload in the buffer.
     * @param length of the payload.
     * @return the index of the first byte that differs from the last frame's payload, or -1 when all match.
     */
    public int payloadMismatch(final DirectBuffer buffer, final int offset, final int length)
    {
        final byte[] scratch = this.scratch;
        buffer.getBytes(offset, scratch, 0, length);
        return Arrays.mismatch(noise, payloadStart, payloadStart + length, scratch, 0, length);
    }

    /**
     * @param index 0-based position in the payload of the last frame.
     * @return the payload byte the frame was built with.
     */
    public byte payloadByte(final int index)
    {
        return noise[payloadStart + index];
    }

    private void fillExtensionHeader(final ExtHeader header, final FrameFields fields)
    {
        final SeededRandom r = random;
        switch (header)
        {
            case RETH:
                fields.rethVa = r.nextLong();
                fields.rethRkey = r.nextInt();
                fields.rethDmaLength = r.nextInt() & 0xFFFF_FFFFL;
                builder.reth().va(fields.rethVa).rkey(fields.rethRkey).dmaLength(fields.rethDmaLength);
                break;
            case AETH:
                fields.aethSyndrome = r.pick(AethHeader.TYPE_ACK, AethHeader.TYPE_RNR_NAK, AethHeader.TYPE_NAK) |
                    r.nextInt(32);
                if (AethHeader.TYPE_NAK == (fields.aethSyndrome & AethHeader.TYPE_MASK))
                {
                    fields.aethSyndrome = AethHeader.TYPE_NAK | r.nextInt(5);
                }
                fields.aethMsn = r.nextInt(1 << 24);
                builder.aeth().syndrome(fields.aethSyndrome).msn(fields.aethMsn);
                break;
            case ATOMIC_ETH:
                fields.atomicVa = r.nextLong() & ~7L;
                fields.atomicRkey = r.nextInt();
                fields.atomicSwapAdd = r.nextLong();
                fields.atomicCompare = r.nextLong();
                builder.atomicEth().va(fields.atomicVa).rkey(fields.atomicRkey).swapAdd(fields.atomicSwapAdd)
                    .compare(fields.atomicCompare);
                break;
            case ATOMIC_ACK_ETH:
                fields.atomicOriginal = r.nextLong();
                builder.atomicAckEth().originalData(fields.atomicOriginal);
                break;
            case DETH:
                fields.qkey = r.nextInt();
                fields.srcQp = r.nextInt(1 << 24);
                builder.deth().qkey(fields.qkey).srcQp(fields.srcQp);
                break;
            case IMM_DT:
                fields.immediate = r.nextInt();
                builder.immDt().immediate(fields.immediate);
                break;
            case IETH:
                fields.iethRkey = r.nextInt();
                builder.ieth().rkey(fields.iethRkey);
                break;
            case FETH:
                fields.fethSelectivity = r.nextInt(4);
                fields.fethPlacement = r.nextInt(16);
                builder.feth().flush(fields.fethSelectivity, fields.fethPlacement);
                break;
            case CNP_RESERVED:
                builder.cnp().clear();
                break;
            default:
                throw new IllegalStateException("no generator for " + header);
        }
    }
}
