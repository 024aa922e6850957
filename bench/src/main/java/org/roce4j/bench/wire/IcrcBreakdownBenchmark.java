package org.roce4j.bench.wire;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;

import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.roce4j.wire.Icrc;
import org.roce4j.wire.header.BthHeader;
import org.roce4j.wire.header.EthernetHeader;
import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.header.UdpHeader;

/**
 * Diagnostic companion of {@link RoceFrameBenchmark}: splits {@link Icrc#compute} into its parts so the gap between
 * parse+verify and a raw CRC32 can be attributed. Average time per operation, in nanoseconds.
 *
 * <p>{@link Icrc} feeds CRC32 a 4-byte seed (folded from the masked header bytes with table lookups), then the packet
 * from IP byte 4 to the end of the pad in place, in one call. Until 2026-11-21 it copied the 40 header bytes into a
 * byte[], masked them there, and ran two CRC32 calls (scratch, then the rest); the benchmarks after
 * {@link #crc32SeedThenRest} time that older scheme, which roce-wire's tests keep as ReferenceIcrc.
 *
 * <ul>
 *   <li>{@link #icrcCompute}: the whole ICRC of an RC RDMA WRITE ONLY frame (IPv4).</li>
 *   <li>{@link #crc32SeedThenRest}: the same CRC32 work without folding the seed: four one-byte updates (a dependent
 *   chain), then one call over the rest.</li>
 *   <li>{@link #crc32Whole}: one CRC32 over as many bytes as the old scheme fed (8 more than the ICRC now feeds).</li>
 *   <li>{@link #crc32Headers}: CRC32 of the 48 masked-header bytes from a byte[] (placeholder, IPv4, UDP, BTH).</li>
 *   <li>{@link #crc32Rest}: CRC32 of the rest (RETH, payload, pad) straight from the buffer.</li>
 *   <li>{@link #crc32HeadersThenRest}: both CRC32 updates back to back, without the copy and the masking.</li>
 *   <li>{@link #copyThenCrcHeadersFirst} and {@link #copyThenCrcHeadersLast}: the cost of CRC32 reading header
 *   bytes stored into a byte[] just before (store-to-load forwarding fails for the CRC's vector loads).</li>
 * </ul>
 * Wall-clock time is noisy on a shared machine: add {@code -prof org.roce4j.bench.CpuTimeProfiler}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {
    "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "-Dagrona.disable.bounds.checks=true"})
public class IcrcBreakdownBenchmark
{
    private static final int BUFFER_BYTES = 8192;
    /** 8 LRH placeholder bytes + IPv4 + UDP + BTH: what the old masked-copy ICRC fed from its scratch array. */
    private static final int MASKED_BYTES = 8 + Ipv4Header.LENGTH + UdpHeader.LENGTH + BthHeader.LENGTH;
    private static final int IP_OFFSET = EthernetHeader.LENGTH;
    private static final int REST_OFFSET = IP_OFFSET + MASKED_BYTES - 8;
    /** Bytes of the ICRC's seed, fed before the packet from IP byte 4 on. */
    private static final int SEED_BYTES = 4;
    /** Any value: only the time of feeding it counts. */
    private static final int SEED = 0x5EED_1C4C;
    /** RETH length: the RDMA WRITE ONLY frame of {@link RoceFrameBenchmark}. */
    private static final int RETH_BYTES = 16;

    /** Payload bytes, a multiple of 4 so there is no pad. */
    @Param({"64", "1024", "4096"})
    public int payloadBytes;

    /** Memory under the frame. */
    @Param({"DIRECT", "HEAP"})
    public BufferKind bufferKind;

    private final Icrc icrc = new Icrc();
    private final CRC32 crc = new CRC32();
    private final byte[] scratch = new byte[256];
    private UnsafeBuffer buffer;
    private ByteBuffer view;
    private byte[] array;
    private int icrcOffset;

    /**
     * Allocate a frame-sized buffer; the bytes' values do not matter to CRC32's speed.
     */
    @Setup
    public void setUp()
    {
        final BufferKind.Memory memory = bufferKind.allocate(BUFFER_BYTES);
        buffer = memory.buffer();
        view = memory.nio().duplicate();
        array = memory.nio().hasArray() ? memory.nio().array() : null;
        icrcOffset = REST_OFFSET + RETH_BYTES + payloadBytes;
        for (int i = 0; i < icrcOffset; i++)
        {
            buffer.putByte(i, (byte)(i * 31));
        }
    }

    /**
     * @return the ICRC.
     */
    @Benchmark
    public int icrcCompute()
    {
        return icrc.compute(buffer, IP_OFFSET, 4, Ipv4Header.LENGTH, icrcOffset);
    }

    /**
     * Four one-byte CRC32 updates standing for the seed, then one CRC32 over IP byte 4 to the end of the pad, in place:
     * the CRC32 work of {@link #icrcCompute} without reading and folding the masked header bytes.
     *
     * @return the CRC.
     */
    @Benchmark
    public long crc32SeedThenRest()
    {
        crc.reset();
        crc.update(SEED);
        crc.update(SEED >>> 8);
        crc.update(SEED >>> 16);
        crc.update(SEED >>> 24);
        update(IP_OFFSET + SEED_BYTES, icrcOffset - IP_OFFSET - SEED_BYTES);
        return crc.getValue();
    }

    /**
     * @return CRC of the 48 header bytes in a byte[].
     */
    @Benchmark
    public long crc32Headers()
    {
        crc.reset();
        crc.update(scratch, 0, MASKED_BYTES);
        return crc.getValue();
    }

    /**
     * @return CRC of RETH, payload and pad in the buffer.
     */
    @Benchmark
    public long crc32Rest()
    {
        crc.reset();
        update(REST_OFFSET, icrcOffset - REST_OFFSET);
        return crc.getValue();
    }

    /**
     * @return CRC of the headers from a byte[], then of the rest from the buffer.
     */
    @Benchmark
    public long crc32HeadersThenRest()
    {
        crc.reset();
        crc.update(scratch, 0, MASKED_BYTES);
        update(REST_OFFSET, icrcOffset - REST_OFFSET);
        return crc.getValue();
    }

    /**
     * @return CRC of as many bytes as the ICRC covers, in one call.
     */
    @Benchmark
    public long crc32Whole()
    {
        crc.reset();
        update(IP_OFFSET, icrcOffset - IP_OFFSET + 8);
        return crc.getValue();
    }

    /**
     * Stage the 40 header bytes in a byte[] the way the ICRC does (the copy only, no masking), then CRC them and the
     * rest at once: the CRC's vector loads hit bytes still in the store buffer and wait.
     *
     * @return the CRC.
     */
    @Benchmark
    public long copyThenCrcHeadersFirst()
    {
        buffer.getBytes(IP_OFFSET, scratch, 8, MASKED_BYTES - 8);
        crc.reset();
        crc.update(scratch, 0, MASKED_BYTES);
        update(REST_OFFSET, icrcOffset - REST_OFFSET);
        return crc.getValue();
    }

    /**
     * The same copy and the same two CRC32 calls, the staged headers CRC'd last, after the rest: by then the stores
     * have reached the cache. Not a valid ICRC (the order is wrong); it only times the wait that
     * {@link #copyThenCrcHeadersFirst} pays.
     *
     * @return the CRC.
     */
    @Benchmark
    public long copyThenCrcHeadersLast()
    {
        buffer.getBytes(IP_OFFSET, scratch, 8, MASKED_BYTES - 8);
        crc.reset();
        update(REST_OFFSET, icrcOffset - REST_OFFSET);
        crc.update(scratch, 0, MASKED_BYTES);
        return crc.getValue();
    }

    private void update(final int offset, final int length)
    {
        if (null != array)
        {
            crc.update(array, offset, length);
        }
        else
        {
            view.limit(offset + length).position(offset);
            crc.update(view);
        }
    }
}
