package org.roce4j.cm.ib;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.pcap.PcapReader;
import org.roce4j.wire.mad.MadHeader;

/**
 * Frames of the rdma_cm golden captures in {@code src/test/resources/vectors} (see its README).
 */
public final class Golden
{
    /** rping -c 10.77.0.2 to rping -s 10.77.0.3: REJ 8, then REQ/REP/RTU, two iterations, DREQ/DREP. */
    public static final String SESSION = "rxe-rping-session.pcap";
    /** rping -c to 10.77.0.1 with nobody there: REQ, REQ again, REJ TIMEOUT. */
    public static final String UNANSWERED = "rxe-rping-req-unanswered.pcap";

    /** One frame with its capture time. */
    public record Frame(byte[] bytes, long timestampNs)
    {
        /**
         * @return the frame parsed (ICRC checked).
         */
        public RoceFrameParser parse()
        {
            final RoceFrameParser parser = new RoceFrameParser();
            final FrameStatus status = parser.parse(new UnsafeBuffer(bytes), 0, bytes.length);
            if (FrameStatus.OK != status)
            {
                throw new AssertionError("golden frame does not parse: " + status);
            }
            return parser;
        }

        /**
         * @return the 256-byte MAD this frame carries.
         */
        public byte[] mad()
        {
            final RoceFrameParser parser = parse();
            if (MadHeader.MAD_LENGTH != parser.payloadLength())
            {
                throw new AssertionError("not a MAD: payload " + parser.payloadLength());
            }
            final byte[] mad = new byte[MadHeader.MAD_LENGTH];
            parser.buffer().getBytes(parser.payloadOffset(), mad);
            return mad;
        }

        /**
         * @return the RoCE payload (after BTH and extension headers).
         */
        public byte[] payload()
        {
            final RoceFrameParser parser = parse();
            final byte[] payload = new byte[parser.payloadLength()];
            parser.buffer().getBytes(parser.payloadOffset(), payload);
            return payload;
        }
    }

    private Golden()
    {
    }

    /**
     * @param name a capture in the vectors folder.
     * @return its frames.
     */
    public static List<Frame> frames(final String name)
    {
        final InputStream in = Golden.class.getResourceAsStream("/vectors/" + name);
        if (null == in)
        {
            throw new IllegalStateException("missing test resource /vectors/" + name);
        }
        try (PcapReader reader = PcapReader.open(name, in))
        {
            final List<Frame> frames = new ArrayList<>();
            while (reader.next())
            {
                frames.add(new Frame(reader.copyRecord(), reader.timestampNs()));
            }
            return frames;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * @param name   a capture.
     * @param number 1-based frame number in it.
     * @return that frame.
     */
    public static Frame frame(final String name, final int number)
    {
        return frames(name).get(number - 1);
    }
}
