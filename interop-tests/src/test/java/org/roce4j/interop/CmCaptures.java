package org.roce4j.interop;

import java.io.IOException;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Map;

import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.mad.CmAttribute;
import org.roce4j.wire.mad.MadHeader;
import org.roce4j.wire.pcap.PcapReader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The CM MADs of a test's recording (target/pcaps/NAME.pcap): every RoCE frame must carry a good ICRC, and the MADs
 * on QP1 are counted by attribute. Shared by the rdma_cm interop tests.
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
     * Every RoCE frame recorded must carry a good ICRC; returns the CM MADs by attribute (both directions).
     *
     * @param name    the recording's name.
     * @param context for failure messages.
     * @return MADs per attribute, every attribute present.
     * @throws IOException when the recording cannot be read.
     */
    static Map<CmAttribute, Integer> verify(final String name, final String context) throws IOException
    {
        final Map<CmAttribute, Integer> counts = new EnumMap<>(CmAttribute.class);
        for (final CmAttribute attribute : CmAttribute.values())
        {
            counts.put(attribute, 0);
        }
        final RoceFrameParser parser = new RoceFrameParser();
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
                if (Opcode.UD_SEND_ONLY == parser.opcode() && 1 == parser.bth().destQp())
                {
                    final CmAttribute attribute = CmAttribute.of(mad.wrap(parser.buffer(), parser.payloadOffset())
                        .attributeId());
                    if (null != attribute)
                    {
                        counts.merge(attribute, 1, Integer::sum);
                    }
                }
            }
        }
        assertTrue(roce > 0, "no RoCE frames recorded\n" + context);
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
