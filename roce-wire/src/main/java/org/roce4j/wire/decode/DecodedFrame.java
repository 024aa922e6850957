package org.roce4j.wire.decode;

import org.agrona.MutableDirectBuffer;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.Icrc;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.Transport;
import org.roce4j.wire.header.BthHeader;

/**
 * The frame the {@link FrameDecoder} is decoding, as both printers see it: the parser holding it, its ICRC (where
 * it is, the value carried and the value expected), and the first timestamp of the capture. Package private: the
 * decoder's own plumbing.
 */
final class DecodedFrame
{
    private final RoceFrameParser parser = new RoceFrameParser();
    private final Icrc icrc = new Icrc();
    private long firstTimestampNs = FrameDecoder.NO_TIMESTAMP;
    private int icrcOffset;
    private int carriedIcrc;
    private int expectedIcrc;

    /**
     * @return the parser holding the current frame.
     */
    RoceFrameParser parser()
    {
        return parser;
    }

    /**
     * Remember the first timestamp seen: times are printed relative to it.
     *
     * @param timestampNs a frame's capture time, or {@link FrameDecoder#NO_TIMESTAMP}.
     */
    void noteTimestamp(final long timestampNs)
    {
        if (FrameDecoder.NO_TIMESTAMP == firstTimestampNs && FrameDecoder.NO_TIMESTAMP != timestampNs)
        {
            firstTimestampNs = timestampNs;
        }
    }

    /**
     * Read the ICRC the frame carries and compute the one it should carry (the parser's when it verified it).
     *
     * @param buffer holding the parsed frame, its BTH reached.
     * @return true when they match.
     */
    boolean checkIcrc(final MutableDirectBuffer buffer)
    {
        icrcOffset = parser.udpOffset() + parser.udp().datagramLength() - Icrc.LENGTH;
        carriedIcrc = Icrc.read(buffer, icrcOffset);
        expectedIcrc = parser.icrcVerified() ? parser.computedIcrc() :
            icrc.compute(buffer, parser.ipOffset(), parser.ipVersion(), parser.ipHeaderLength(), icrcOffset);
        return carriedIcrc == expectedIcrc;
    }

    /**
     * @return offset of the ICRC in the buffer.
     */
    int icrcOffset()
    {
        return icrcOffset;
    }

    /**
     * @return the ICRC the frame carries.
     */
    int carriedIcrc()
    {
        return carriedIcrc;
    }

    /**
     * @return the ICRC the frame should carry.
     */
    int expectedIcrc()
    {
        return expectedIcrc;
    }

    /**
     * @return true when the carried ICRC is the expected one.
     */
    boolean icrcCorrect()
    {
        return carriedIcrc == expectedIcrc;
    }

    /**
     * @param status from the parser, for a frame whose BTH was reached.
     * @return true when the extension headers after the BTH were parsed.
     */
    static boolean headersParsed(final FrameStatus status)
    {
        return FrameStatus.OK == status || FrameStatus.BAD_ICRC == status ||
            FrameStatus.UNEXPECTED_PAYLOAD == status || FrameStatus.PAD_INCONSISTENT == status;
    }

    /**
     * @param opcode the frame's opcode.
     * @return true for a UD packet to QP1, whose payload is a MAD.
     */
    boolean isMad(final Opcode opcode)
    {
        return Transport.UD == opcode.transport() && BthHeader.GSI_QPN == parser.bth().destQp();
    }

    /**
     * @param timestampNs a capture time.
     * @return seconds since the first timestamp, with microseconds ("1.000250").
     */
    String relativeSeconds(final long timestampNs)
    {
        final long delta = timestampNs - firstTimestampNs;
        final long micros = delta / 1000;
        final StringBuilder sb = new StringBuilder(16);
        if (micros < 0)
        {
            sb.append('-');
        }
        final long abs = Math.abs(micros);
        sb.append(abs / 1_000_000).append('.');
        final String fraction = Long.toString(abs % 1_000_000);
        for (int i = fraction.length(); i < 6; i++)
        {
            sb.append('0');
        }
        return sb.append(fraction).toString();
    }

    /**
     * @param code a BTH opcode.
     * @return its name, or "unknown opcode".
     */
    static String opcodeName(final int code)
    {
        final Opcode opcode = Opcode.of(code);
        return null == opcode ? "unknown opcode" : opcode.name();
    }
}
