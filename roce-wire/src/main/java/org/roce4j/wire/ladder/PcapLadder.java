package org.roce4j.wire.ladder;

import java.util.ArrayList;
import java.util.List;

import org.agrona.MutableDirectBuffer;
import org.roce4j.wire.ExtHeader;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.ResendDetector;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.decode.FrameDecoder;
import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.header.Ipv6Header;

/**
 * Builds a {@link Ladder} from the frames of any capture ({@code roce decode FILE --ladder OUT.svg}): the two
 * endpoints are the IP addresses of the first RoCEv2 frame (its sender is the left column), and every RoCEv2 frame
 * between them, either way, becomes an arrow labelled with {@link FrameLabel}. Frames that are not RoCEv2, and
 * RoCEv2 frames between other addresses, are left out and counted in the ladder's notes.
 *
 * <p>A capture carries no record of injected faults, so only what the frames themselves show is marked: a frame
 * whose ICRC does not match (or whose headers are broken after the BTH) is CORRUPTED, and a request the
 * {@link ResendDetector} has seen before (same direction, QP, opcode and PSN) is a DUPLICATE ("resent": a
 * retransmission or a duplicate; responses repeat PSNs legitimately and are not marked). Feed frames with
 * {@link #add} in capture order; allocates per frame (a tool, not the data path).
 */
public final class PcapLadder
{
    private final RoceFrameParser parser = new RoceFrameParser();
    private final List<Ladder.Arrow> arrows = new ArrayList<>();
    private final ResendDetector resends = new ResendDetector();
    private String left;
    private String right;
    private long notRoce;
    private long otherEndpoints;

    /**
     * @param frame  the frame's number (as {@code roce decode} prints it).
     * @param timeNs its timestamp ({@link FrameDecoder#NO_TIMESTAMP} is drawn as 0).
     * @param buffer the bytes.
     * @param offset where the Ethernet frame starts.
     * @param length captured length.
     */
    public void add(final long frame, final long timeNs, final MutableDirectBuffer buffer, final int offset,
        final int length)
    {
        final FrameStatus status = parser.parse(buffer, offset, length);
        if (!FrameDecoder.reachedBth(status))
        {
            notRoce++;
            return;
        }
        final String source;
        final String destination;
        if (4 == parser.ipVersion())
        {
            source = Ipv4Header.addressToString(parser.ipv4().source());
            destination = Ipv4Header.addressToString(parser.ipv4().destination());
        }
        else
        {
            source = Ipv6Header.addressToString(parser.ipv6().sourceHigh(), parser.ipv6().sourceLow());
            destination = Ipv6Header.addressToString(parser.ipv6().destinationHigh(), parser.ipv6().destinationLow());
        }
        if (null == left)
        {
            left = source;
            right = destination;
        }
        final boolean leftToRight = left.equals(source) && right.equals(destination);
        if (!leftToRight && !(right.equals(source) && left.equals(destination)))
        {
            otherEndpoints++;
            return;
        }
        final long atNs = FrameDecoder.NO_TIMESTAMP == timeNs ? 0 : timeNs;
        final Opcode opcode = parser.opcode();
        final int psn = parser.bth().psn();
        if (FrameStatus.OK != status && FrameStatus.BAD_ICRC != status || null == opcode)
        {
            arrows.add(new Ladder.Arrow(frame, atNs, leftToRight, "opcode 0x" +
                Integer.toHexString(parser.bth().opcode()) + " psn=0x" + Integer.toHexString(psn),
                Ladder.Fate.CORRUPTED, status.description()));
            return;
        }
        final boolean aeth = opcode.has(ExtHeader.AETH);
        final String label = FrameLabel.describe(opcode, psn, parser.bth().ackReq(),
            aeth ? parser.aeth().syndrome() : -1, aeth ? parser.aeth().msn() : -1, parser.payloadLength());
        final boolean repeated = resends.resent(leftToRight, parser.bth().destQp(), opcode, psn);
        final Ladder.Fate fate = FrameStatus.BAD_ICRC == status ? Ladder.Fate.CORRUPTED :
            repeated ? Ladder.Fate.DUPLICATE : Ladder.Fate.DELIVERED;
        arrows.add(new Ladder.Arrow(frame, atNs, leftToRight, label, fate,
            FrameStatus.BAD_ICRC == status ? "bad ICRC" : repeated ? "resent" : ""));
    }

    /**
     * @param title the diagram's title (the file's name).
     * @return the ladder of the frames added so far.
     */
    public Ladder ladder(final String title)
    {
        final List<String> notes = new ArrayList<>();
        if (notRoce > 0)
        {
            notes.add(notRoce + (1 == notRoce ? " frame" : " frames") + " not RoCEv2 left out");
        }
        if (otherEndpoints > 0)
        {
            notes.add(otherEndpoints + (1 == otherEndpoints ? " RoCEv2 frame" : " RoCEv2 frames") +
                " between other addresses left out (the ladder shows the first frame's two endpoints)");
        }
        return new Ladder(title, null == left ? "side A" : left, null == right ? "side B" : right, arrows,
            List.of(), notes);
    }

    /**
     * @return arrows so far.
     */
    public int arrows()
    {
        return arrows.size();
    }
}
