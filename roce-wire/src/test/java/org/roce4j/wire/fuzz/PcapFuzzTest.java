package org.roce4j.wire.fuzz;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.roce4j.wire.Vectors;
import org.roce4j.wire.pcap.LinkType;
import org.roce4j.wire.pcap.PcapFormatException;
import org.roce4j.wire.pcap.PcapReader;
import org.roce4j.wire.pcap.PcapWriter;
import org.roce4j.wire.pcap.PcapngSeeds;
import org.roce4j.wire.test.Hex;
import org.roce4j.wire.test.Seeded;
import org.roce4j.wire.test.SeededRandom;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Mutation fuzzing of {@link PcapReader}: classic pcap files (both byte orders, µs and ns) and pcapng files (from
 * editcap and hand-built with several interfaces and block types) with bit flips, byte and 32-bit word sets (which
 * hit the record and block length fields), truncation, junk appended and spliced chunks. Reading one to the end
 * may only end normally or with a {@link PcapFormatException} naming the file: never another exception, never a
 * hang (batches run under a limit only a hang could reach).
 *
 * <p>{@code -Droce4j.fuzz.pcaps=N} changes the number of mutated files, {@code -Droce4j.seed=0x...} replays a run.
 */
@Seeded
class PcapFuzzTest
{
    private static final int FILES = Integer.getInteger("roce4j.fuzz.pcaps", 20_000);
    private static final int BATCH = 2_000;
    private static final Duration BATCH_LIMIT = Duration.ofSeconds(120);
    private static final int[] WORDS = {0, -1, 1, 4, 7, 8, 12, 16, 20, 28, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF,
        16 * 1024 * 1024, 16 * 1024 * 1024 + 1, 0x0A0D0D0A, 0x1A2B3C4D, 0x4D3C2B1A, 6, 3, 2, 1 << 20};

    @Test
    void readerEndsEveryMutatedFileNormallyOrWithPcapFormatException(final SeededRandom random) throws IOException
    {
        final List<byte[]> seeds = seedFiles();
        final long[] outcomes = new long[3];
        final long[] records = new long[1];
        int done = 0;
        while (done < FILES)
        {
            final int batch = Math.min(BATCH, FILES - done);
            final int first = done;
            assertTimeoutPreemptively(BATCH_LIMIT, () ->
            {
                for (int i = 0; i < batch; i++)
                {
                    final byte[] file = mutate(random, seeds.get(random.nextInt(seeds.size())));
                    final String name = "fuzz-" + (first + i) + ".pcap";
                    try (PcapReader reader = PcapReader.open(name, new ByteArrayInputStream(file)))
                    {
                        while (reader.next())
                        {
                            records[0]++;
                            assertTrue(reader.capturedLength() >= 0 && reader.capturedLength() <= reader.buffer()
                                .capacity(), name);
                        }
                        outcomes[0]++;
                    }
                    catch (final PcapFormatException ex)
                    {
                        assertTrue(ex.getMessage().startsWith(name + ": "), ex.getMessage());
                        outcomes[1]++;
                    }
                    catch (final Throwable ex)
                    {
                        throw new AssertionError(name + " threw " + ex + " for file " +
                            Hex.of(Arrays.copyOf(file, Math.min(file.length, 512))), ex);
                    }
                }
            }, () -> "a batch of " + batch + " files from file " + first + " did not finish: hang?");
            done += batch;
        }
        System.out.println("fuzzed PcapReader with " + FILES + " files from " + seeds.size() + " seeds, " + random +
            ": " + outcomes[0] + " read to the end, " + outcomes[1] + " PcapFormatException, " + records[0] +
            " records read");
        assertTrue(outcomes[0] > 0 && outcomes[1] > 0, "both outcomes must occur");
    }

    private static byte[] mutate(final SeededRandom random, final byte[] seed)
    {
        byte[] file = seed.clone();
        final int mutations = 1 + random.nextInt(3);
        for (int m = 0; m < mutations; m++)
        {
            switch (random.nextInt(6))
            {
                case 0:
                    for (int i = random.nextInt(1, 9); i > 0 && file.length > 0; i--)
                    {
                        file[random.nextInt(file.length)] ^= (byte)(1 << random.nextInt(8));
                    }
                    break;
                case 1:
                    for (int i = random.nextInt(1, 5); i > 0 && file.length > 0; i--)
                    {
                        final int value = random.pick(0, 0xFF, 0x7F, 0x80, 1, random.nextInt());
                        file[random.nextInt(file.length)] = (byte)value;
                    }
                    break;
                case 2:
                    if (file.length >= 4)
                    {
                        // A 32-bit word at a 4-byte boundary: pcap and pcapng length fields all sit on one.
                        final int at = random.nextInt(file.length / 4) * 4;
                        final int word = random.nextBoolean() ? WORDS[random.nextInt(WORDS.length)] : random.nextInt();
                        final ByteOrder order = random.nextBoolean() ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN;
                        ByteBuffer.wrap(file).order(order).putInt(at, word);
                    }
                    break;
                case 3:
                    file = Arrays.copyOf(file, file.length > 0 ? random.nextInt(file.length) : 0);
                    break;
                case 4:
                {
                    final byte[] junk = new byte[random.nextInt(1, 64)];
                    random.nextBytes(junk);
                    final byte[] longer = Arrays.copyOf(file, file.length + junk.length);
                    System.arraycopy(junk, 0, longer, file.length, junk.length);
                    file = longer;
                    break;
                }
                default:
                    if (file.length > 8)
                    {
                        // Splice: repeat or drop a chunk, which shifts every later block.
                        final int from = random.nextInt(file.length);
                        final int length = random.nextInt(Math.min(64, file.length - from) + 1);
                        final ByteArrayOutputStream out = new ByteArrayOutputStream();
                        out.write(file, 0, from);
                        if (random.nextBoolean())
                        {
                            out.write(file, from, length);
                            out.write(file, from, file.length - from);
                        }
                        else
                        {
                            out.write(file, from + length, file.length - from - length);
                        }
                        file = out.toByteArray();
                    }
                    break;
            }
        }
        return file;
    }

    private static List<byte[]> seedFiles() throws IOException
    {
        final List<byte[]> seeds = new ArrayList<>();
        seeds.add(resource("/vectors/" + Vectors.RXE_VS_PEER));
        seeds.add(resource("/vectors/" + Vectors.RPING_REQ));
        // The first records of the big captures, rewritten with nanosecond and microsecond timestamps.
        final List<byte[]> frames = Vectors.frames(Vectors.RXE_PAIR);
        for (final boolean nanos : new boolean[] {true, false})
        {
            final ByteArrayOutputStream out = new ByteArrayOutputStream();
            try (PcapWriter writer = new PcapWriter(out, LinkType.ETHERNET, nanos))
            {
                for (int i = 0; i < 12; i++)
                {
                    writer.write(frames.get(i), 1_700_000_000_000_000_000L + i * 1000L);
                }
            }
            seeds.add(out.toByteArray());
        }
        // A big-endian classic file.
        final ByteBuffer big = ByteBuffer.allocate(24 + 2 * (16 + 8)).order(ByteOrder.BIG_ENDIAN);
        big.putInt(0xA1B2C3D4).putShort((short)2).putShort((short)4).putInt(0).putInt(0).putInt(65535).putInt(1);
        big.putInt(1).putInt(2).putInt(8).putInt(8).putLong(0x0102030405060708L);
        big.putInt(3).putInt(4).putInt(8).putInt(60).putLong(-1L);
        seeds.add(big.array());
        // The editcap pcapng copy, cut after its first blocks.
        seeds.add(Arrays.copyOf(resource("/pcap/rxe-pair-ibverbs-perftest-rping.pcapng"), 3000));
        // Hand-built pcapng: interfaces with timestamp resolutions, all packet block kinds, a skipped block.
        final byte[] a = {1, 2, 3, 4, 5, 6, 7};
        seeds.add(new PcapngSeeds().twoInterfaces(a));
        seeds.add(new PcapngSeeds().bigEndian(a));
        return seeds;
    }

    private static byte[] resource(final String name) throws IOException
    {
        try (InputStream in = PcapFuzzTest.class.getResourceAsStream(name))
        {
            if (null == in)
            {
                throw new IllegalStateException("missing test resource " + name);
            }
            return in.readAllBytes();
        }
    }
}
