package org.roce4j.wire.mad;

import java.util.ArrayList;
import java.util.List;

import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.Vectors;
import org.roce4j.wire.header.BthHeader;
import org.roce4j.wire.header.DethHeader;

/**
 * The CM MADs of a capture: every well-formed UD SEND_ONLY to QP1, with where its MAD starts.
 */
final class CmFrames
{
    /**
     * One CM MAD.
     *
     * @param frameNumber   1-based, as Wireshark numbers it.
     * @param buffer        the whole frame.
     * @param madOffset     where the MAD starts in it.
     * @param sourceIp      IPv4 source of the packet.
     * @param destinationIp IPv4 destination of the packet.
     * @param attribute     the CM message, or null when the MAD is not a known CM attribute.
     * @param qkey          the DETH Q_Key.
     * @param srcQp         the DETH source QP.
     * @param payloadLength bytes of payload (the MAD).
     */
    record CmFrame(int frameNumber, UnsafeBuffer buffer, int madOffset, int sourceIp, int destinationIp,
        CmAttribute attribute, int qkey, int srcQp, int payloadLength)
    {
    }

    private CmFrames()
    {
    }

    static List<CmFrame> of(final String capture)
    {
        final RoceFrameParser parser = new RoceFrameParser();
        final MadHeader mad = new MadHeader();
        final List<CmFrame> result = new ArrayList<>();
        final List<byte[]> frames = Vectors.frames(capture);
        for (int i = 0; i < frames.size(); i++)
        {
            final UnsafeBuffer buffer = new UnsafeBuffer(frames.get(i));
            if (FrameStatus.OK != parser.parse(buffer, 0, buffer.capacity()) ||
                Opcode.UD_SEND_ONLY != parser.opcode() || BthHeader.GSI_QPN != parser.bth().destQp())
            {
                continue;
            }
            mad.wrap(buffer, parser.payloadOffset());
            final DethHeader deth = parser.deth();
            result.add(new CmFrame(i + 1, buffer, parser.payloadOffset(), parser.ipv4().source(),
                parser.ipv4().destination(), CmAttribute.of(mad.attributeId()), deth.qkey(), deth.srcQp(),
                parser.payloadLength()));
        }
        return result;
    }

    static CmFrame frame(final String capture, final int frameNumber)
    {
        for (final CmFrame frame : of(capture))
        {
            if (frameNumber == frame.frameNumber())
            {
                return frame;
            }
        }
        throw new AssertionError("no CM MAD at frame " + frameNumber + " of " + capture);
    }
}
