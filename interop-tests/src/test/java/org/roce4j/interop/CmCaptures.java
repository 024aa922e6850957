package org.roce4j.interop;

import java.io.IOException;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Map;

import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.header.BthHeader;
import org.roce4j.wire.mad.CmAttribute;
import org.roce4j.wire.mad.MadHeader;
import org.roce4j.wire.pcap.PcapReader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A test's recording (target/pcaps/NAME.pcap) read whole: every RoCE frame must carry a good ICRC, the frames are
 * counted by opcode in each direction and the MADs on QP1 by attribute. Shared by the rdma_cm, perftest and pyverbs
 * interop tests.
 */
final class CmCaptures
{
    private CmCaptures()
    {
    }

    /**
     * @param name the recording's name, without ".pcap".
     * @return its path.
     */
    static Path pcap(final String name)
    {
        return PeerTools.targetDir().resolve("pcaps").resolve(name + ".pcap");
    }

    /**
     * What one recording holds: its RoCE frames, by opcode in each direction, and the CM MADs on QP1.
     *
     * @param roce   RoCE frames (both directions).
     * @param ours   frames roce4j's link sent, by opcode (every opcode present).
     * @param theirs frames the guest sent, by opcode (every opcode present).
     * @param mads   CM MADs by attribute (both directions, every attribute present).
     */
    record Tally(long roce, Map<Opcode, Integer> ours, Map<Opcode, Integer> theirs, Map<CmAttribute, Integer> mads)
    {
    }

    /**
     * Every RoCE frame recorded must carry a good ICRC; returns the CM MADs by attribute (both directions).
     *
     * @param name    the recording's name.
     * @param context for failure messages.
     * @return MADs per attribute, every attribute present.
     * @throws IOException when the recording cannot be read.
     */
    static Map<CmAttribute, Integer> verify(final String name, final String context) throws IOException
    {
        return tally(name, 0, false, context).mads();
    }

    /**
     * Reads a recording whole: every RoCE frame in it must parse with a good ICRC, and there must be at least one.
     *
     * @param name          the recording's name.
     * @param ourMac        roce4j's link MAC, to tell the directions apart (0 when they do not matter).
     * @param rxeFlushIcrc  also accept, on a FLUSH, the ICRC rxe computes (RoceFrameParser.acceptRxeFlushIcrc).
     * @param context       for failure messages.
     * @return the frames by opcode and direction, and the MADs.
     * @throws IOException when the recording cannot be read.
     */
    static Tally tally(final String name, final long ourMac, final boolean rxeFlushIcrc, final String context)
        throws IOException
    {
        final Tally tally = read(name, ourMac, rxeFlushIcrc, context);
        assertTrue(tally.roce() > 0, "no RoCE frames recorded\n" + context);
        return tally;
    }

    /**
     * For a case where nothing may go on the wire: the RoCE frames recorded (each must carry a good ICRC).
     *
     * @param name    the recording's name.
     * @param context for failure messages.
     * @return how many, possibly 0.
     * @throws IOException when the recording cannot be read.
     */
    static long roceFrames(final String name, final String context) throws IOException
    {
        return read(name, 0, false, context).roce();
    }

    private static Tally read(final String name, final long ourMac, final boolean rxeFlushIcrc, final String context)
        throws IOException
    {
        final Tally tally = new Tally(0, zeros(Opcode.class), zeros(Opcode.class), zeros(CmAttribute.class));
        final RoceFrameParser parser = new RoceFrameParser().acceptRxeFlushIcrc(rxeFlushIcrc);
        final MadHeader mad = new MadHeader();
        long roce = 0;
        try (PcapReader reader = PcapReader.open(pcap(name)))
        {
            while (reader.next())
            {
                final FrameStatus status = parser.parse(reader.buffer(), 0, reader.capturedLength());
                if (status.isNotRoce() || FrameStatus.TRUNCATED_ETHERNET == status)
                {
                    continue;
                }
                roce++;
                assertEquals(FrameStatus.OK, status, "frame " + reader.index() + " of " + name + ".pcap\n" + context);
                (ourMac == parser.ethernet().source() ? tally.ours() : tally.theirs())
                    .merge(parser.opcode(), 1, Integer::sum);
                if (Opcode.UD_SEND_ONLY == parser.opcode() && BthHeader.GSI_QPN == parser.bth().destQp())
                {
                    final CmAttribute attribute = CmAttribute.of(mad.wrap(parser.buffer(), parser.payloadOffset())
                        .attributeId());
                    if (null != attribute)
                    {
                        tally.mads().merge(attribute, 1, Integer::sum);
                    }
                }
            }
        }
        return new Tally(roce, tally.ours(), tally.theirs(), tally.mads());
    }

    private static <K extends Enum<K>> Map<K, Integer> zeros(final Class<K> keys)
    {
        final Map<K, Integer> counts = new EnumMap<>(keys);
        for (final K key : keys.getEnumConstants())
        {
            counts.put(key, 0);
        }
        return counts;
    }

    /**
     * One line for the test's output: the case's time and the MADs seen.
     *
     * @param tag     e.g. "rping-interop".
     * @param name    the case.
     * @param startNs when it started (System.nanoTime).
     * @param cm      MADs per attribute.
     */
    static void report(final String tag, final String name, final long startNs, final Map<CmAttribute, Integer> cm)
    {
        final StringBuilder mads = new StringBuilder();
        cm.forEach((attribute, n) ->
        {
            if (n > 0)
            {
                mads.append(' ').append(attribute.shortName()).append('=').append(n);
            }
        });
        System.out.println("[" + tag + "] " + name + ": " + (System.nanoTime() - startNs) / 1_000_000 + " ms," +
            mads);
    }
}
