package org.roce4j.transport.link.capture;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.agrona.concurrent.CachedNanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.link.TestFrames;
import org.roce4j.transport.link.fault.FaultSpec;
import org.roce4j.transport.link.fault.FaultyLink;
import org.roce4j.transport.link.memory.MemoryFabric;
import org.roce4j.transport.link.memory.MemoryLink;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.pcap.PcapReader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The capture decorator's file read back: every frame sent and received, in order, byte for byte, with its direction
 * and the clock's timestamps; frames a FaultyLink below it drops on the way out are not on the wire, so not in the
 * file.
 */
class CaptureLinkTest
{
    private static final LinkAddress A = TestFrames.address(1);
    private static final LinkAddress B = TestFrames.address(2);

    @Test
    void recordsEveryFrameBothWaysWithItsDirection(@TempDir final Path dir) throws IOException
    {
        final CachedNanoClock clock = new CachedNanoClock();
        final Path file = dir.resolve("sub/a.pcapng");
        final List<byte[]> sent = new ArrayList<>();
        final List<byte[]> received = new ArrayList<>();
        try (MemoryFabric fabric = MemoryFabric.builder().clock(clock).build())
        {
            final MemoryLink b = fabric.attach(B, 1500);
            final CaptureLink a = new CaptureLink(fabric.attach(A, 1500), file, clock);
            final TestFrames frames = new TestFrames();
            final UnsafeBuffer frame = new UnsafeBuffer(new byte[2048]);
            for (int psn = 0; psn < 5; psn++)
            {
                clock.advance(1_000);
                final int length = frames.ipv4(frame, 0, A, B, Opcode.UD_SEND_ONLY, 0x11, psn, 10 + psn);
                final byte[] copy = new byte[length];
                frame.getBytes(0, copy);
                sent.add(copy);
                a.send(frame, 0, length);
                final int reply = frames.ipv4(frame, 0, B, A, Opcode.UD_SEND_ONLY, 0x12, psn, 20);
                b.send(frame, 0, reply);
                a.poll((buffer, offset, l) ->
                {
                    final byte[] in = new byte[l];
                    buffer.getBytes(offset, in);
                    received.add(in);
                }, 16);
            }
            assertEquals(10, a.recorder().frames());
            a.close();
        }
        try (PcapReader reader = PcapReader.open(file))
        {
            assertTrue(reader.isPcapng());
            final RoceFrameParser parser = new RoceFrameParser();
            for (int i = 0; i < 10; i++)
            {
                assertTrue(reader.next(), "record " + i);
                final boolean outbound = 0 == i % 2;
                assertEquals(outbound ? PcapReader.DIRECTION_OUTBOUND : PcapReader.DIRECTION_INBOUND,
                    reader.direction(), "direction of record " + i);
                final byte[] expected = (outbound ? sent : received).get(i / 2);
                final byte[] record = reader.copyRecord();
                if (outbound)
                {
                    // The fabric fills in the destination MAC, which the file shows as it left.
                    System.arraycopy(record, 0, expected, 0, 6);
                }
                assertArrayEquals(expected, record, "bytes of record " + i);
                assertEquals(FrameStatus.OK, parser.parse(reader.buffer(), 0, reader.capturedLength(), true));
            }
            assertTrue(!reader.next(), "nothing more");
        }
    }

    @Test
    void framesDroppedOnTheWayOutAreNotOnTheWire(@TempDir final Path dir) throws IOException
    {
        final CachedNanoClock clock = new CachedNanoClock();
        final Path file = dir.resolve("d.pcapng");
        try (MemoryFabric fabric = MemoryFabric.builder().clock(clock).build())
        {
            fabric.attach(B, 1500);
            final FaultyLink faulty = new FaultyLink(fabric.attach(A, 1500), FaultSpec.parse("drop=1,every=2,dir=tx"),
                clock);
            final CaptureLink a = new CaptureLink(faulty, file, clock);
            final TestFrames frames = new TestFrames();
            final UnsafeBuffer frame = new UnsafeBuffer(new byte[2048]);
            for (int psn = 0; psn < 10; psn++)
            {
                final int index = a.tryClaim(1518);
                a.commit(index, frames.ipv4(a.sendBuffer(), index, A, B, Opcode.UD_SEND_ONLY, 0x11, psn, 8));
            }
            assertEquals(5, a.recorder().frames());
            a.close();
        }
        int records = 0;
        try (PcapReader reader = PcapReader.open(file))
        {
            while (reader.next())
            {
                records++;
            }
        }
        assertEquals(5, records);
    }

    @Test
    void aFileThatCannotBeCreatedIsNamed(@TempDir final Path dir) throws IOException
    {
        final Path notADirectory = Files.createFile(dir.resolve("plain"));
        try (MemoryFabric fabric = new MemoryFabric())
        {
            final MemoryLink a = fabric.attach(A, 1500);
            final IOException ex = assertThrows(IOException.class,
                () -> new CaptureLink(a, notADirectory.resolve("x.pcapng"), new CachedNanoClock()));
            assertTrue(ex.getMessage().contains("cannot create pcap file " + notADirectory.resolve("x.pcapng")),
                ex.getMessage());
        }
    }
}
