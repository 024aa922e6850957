package org.roce4j.interop;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.header.EthernetHeader;
import org.roce4j.wire.pcap.PcapReader;

/**
 * The RoCE frames of a pcap recorded by the tunnel link, each parsed with its ICRC checked.
 */
final class CapturedFrames
{
    /**
     * One RoCE frame of the capture.
     *
     * @param fromUs true when the source MAC is the link's.
     * @param status the parser's verdict, ICRC included.
     * @param opcode the opcode.
     * @param psn    BTH PSN.
     * @param length frame length.
     */
    record Frame(boolean fromUs, FrameStatus status, Opcode opcode, int psn, int length)
    {
        /**
         * @return e.g. {@code us RC_SEND_ONLY psn=0x123456 OK}.
         */
        public String toString()
        {
            return (fromUs ? "us  " : "rxe ") + opcode + String.format(" psn=0x%06x len=%d ", psn, length) + status;
        }
    }

    private CapturedFrames()
    {
    }

    /**
     * @param pcap   the file.
     * @param ourMac the link's MAC, to tell directions apart.
     * @return its RoCE (UDP 4791) frames in order; ARP and other traffic are left out.
     * @throws IOException when it cannot be read.
     */
    static List<Frame> read(final Path pcap, final long ourMac) throws IOException
    {
        final RoceFrameParser parser = new RoceFrameParser();
        final List<Frame> frames = new ArrayList<>();
        try (PcapReader reader = PcapReader.open(pcap))
        {
            while (reader.next())
            {
                final byte[] bytes = reader.copyRecord();
                final UnsafeBuffer buffer = new UnsafeBuffer(bytes);
                final FrameStatus status = parser.parse(buffer, 0, bytes.length, true);
                if (null == parser.opcode())
                {
                    continue;
                }
                final long source = new EthernetHeader().wrap(buffer, 0).source();
                frames.add(new Frame(ourMac == source, status, parser.opcode(), parser.bth().psn(), bytes.length));
            }
        }
        return frames;
    }
}
