package org.roce4j.wire.test;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.pcap.PcapWriter;

/**
 * Writes a pcap of random frames for an external decoder (scapy, tshark) to read back, keeping the field values
 * of every frame in order.
 */
public final class OracleCapture
{
    private OracleCapture()
    {
    }

    /**
     * Write {@code perOpcode} frames of every opcode, interleaved, with random fields and payloads up to
     * {@code maxPayload} bytes (an occasional one up to 4096), random 802.1Q tags.
     *
     * @param random     source of every value.
     * @param path       of the pcap to write.
     * @param perOpcode  frames per opcode.
     * @param ipVersions IP versions to cycle through (4, 6 or both).
     * @param maxPayload usual largest payload.
     * @return the fields of every frame, in file order.
     * @throws IOException when the file cannot be written.
     */
    public static List<FrameFields> write(
        final SeededRandom random, final Path path, final int perOpcode, final int[] ipVersions, final int maxPayload)
        throws IOException
    {
        final RandomFrames frames = new RandomFrames(random);
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[8192]);
        final List<FrameFields> written = new ArrayList<>();
        final Opcode[] opcodes = Opcode.values();
        try (PcapWriter writer = new PcapWriter(path))
        {
            long timestampNs = 1_700_000_000_000_000_000L;
            for (int round = 0; round < perOpcode; round++)
            {
                for (final Opcode opcode : opcodes)
                {
                    final FrameFields fields = new FrameFields();
                    final int ipVersion = ipVersions[(round + opcode.ordinal()) % ipVersions.length];
                    int payload = 0;
                    if (opcode.hasPayload())
                    {
                        payload = 0 == random.nextInt(20) ? random.nextInt(4097) : random.nextInt(maxPayload + 1);
                    }
                    final boolean vlan = random.nextBoolean();
                    final int length = frames.build(opcode, ipVersion, vlan, payload, buffer, 0, fields);
                    writer.write(buffer, 0, length, timestampNs);
                    timestampNs += 1000;
                    written.add(fields);
                }
            }
        }
        return written;
    }
}
