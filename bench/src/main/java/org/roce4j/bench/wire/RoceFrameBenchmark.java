package org.roce4j.bench.wire;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;
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
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.Icrc;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrameBuilder;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.header.EthernetHeader;
import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.header.UdpHeader;

/**
 * Cost of building and of parsing one whole RoCEv2 frame (Ethernet, IPv4, UDP, BTH, RETH for RDMA WRITE, payload,
 * pad, ICRC), against the baseline of the JDK's {@link CRC32} run over the same bytes in the same JVM.
 *
 * <p>Every operation handles one frame of {@code frameLength} bytes (Ethernet header to the end of the ICRC; see
 * {@link #expectedFrameLength}), so bytes/s of any benchmark is its ops/s times that length; bench/run.sh wire
 * derives it. The benchmarks:
 * <ul>
 *   <li>{@link #build}: what a requester does per packet: every header written, the payload copied in from a
 *   separate source buffer (the registered memory), then {@link RoceFrameBuilder#finish()}: pad, lengths, IPv4
 *   header checksum and ICRC.</li>
 *   <li>{@link #parseVerify}: what a receive path does per packet: {@link RoceFrameParser#parse} with ICRC
 *   verification.</li>
 *   <li>{@link #parseNoVerify}: the same without the ICRC, to split the parse cost from the ICRC cost.</li>
 *   <li>{@link #crc32Frame}: baseline, one {@link CRC32} over the whole frame ({@code frameLength} bytes), fed the
 *   fastest way the JDK offers (byte[] for heap memory, a direct ByteBuffer for off-heap memory).</li>
 *   <li>{@link #crc32IpToPad}: baseline, one {@link CRC32} over exactly the bytes the ICRC covers as they sit in the
 *   frame: the IP header to the end of the pad ({@code frameLength - 18}: no Ethernet header, no ICRC), unmasked
 *   and without the 8-byte LRH placeholder.</li>
 * </ul>
 * Run with {@code -prof gc}: gc.alloc.rate.norm must be ~0 B/op for the build and parse paths.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Thread)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = {
    "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "-Dagrona.disable.bounds.checks=true"})
public class RoceFrameBenchmark
{
    /** Room for the largest frame measured: 4 KiB payload plus headers, rounded up. */
    private static final int BUFFER_BYTES = 8192;
    /** Seed of the payload bytes; fixed so every run CRCs the same data. */
    private static final long PAYLOAD_SEED = 0x5EED_F00DL;

    private static final long DESTINATION_MAC = 0x02_00_00_00_00_02L;
    private static final long SOURCE_MAC = 0x02_00_00_00_00_01L;
    /** 10.0.0.1 and 10.0.0.2 as big-endian ints. */
    private static final int SOURCE_IP = 0x0A_00_00_01;
    private static final int DESTINATION_IP = 0x0A_00_00_02;
    /** rxe picks a UDP source port in 0xC000..0xFFFF from a hash of the QPN; any value in that range will do. */
    private static final int UDP_SOURCE_PORT = 0xC011;
    private static final int DEST_QP = 0x000011;
    private static final int PSN = 0x00ABCD;
    private static final long REMOTE_VA = 0x7F00_1234_5000L;
    private static final int RKEY = 0x0000_1A2B;

    /** Payload bytes per frame: a small message, a 1 KiB MTU-sized one, and a 4 KiB MTU-sized one. */
    @Param({"64", "1024", "4096"})
    public int payloadBytes;

    /** RDMA WRITE ONLY carries a RETH (16 bytes) before the payload; SEND ONLY carries nothing but the BTH. */
    @Param({"RC_RDMA_WRITE_ONLY", "RC_SEND_ONLY"})
    public Opcode opcode;

    /** Memory under the frames. */
    @Param({"DIRECT", "HEAP", "ADDRESS"})
    public BufferKind bufferKind;

    private final RoceFrameBuilder builder = new RoceFrameBuilder();
    private final RoceFrameParser parser = new RoceFrameParser();
    private final CRC32 crc = new CRC32();

    private UnsafeBuffer txBuffer;
    private UnsafeBuffer payloadSource;
    private UnsafeBuffer rxBuffer;
    private ByteBuffer rxNio;
    private ByteBuffer rxView;
    private byte[] rxArray;
    private int frameLength;
    private boolean rdmaWrite;

    /**
     * Allocate the buffers, fill the payload with seeded random bytes, build the received frame once and check
     * that the code under test agrees with itself before anything is timed.
     */
    @Setup
    public void setUp()
    {
        rdmaWrite = Opcode.RC_RDMA_WRITE_ONLY == opcode;
        if (!rdmaWrite && Opcode.RC_SEND_ONLY != opcode)
        {
            throw new IllegalArgumentException("opcode must be RC_RDMA_WRITE_ONLY or RC_SEND_ONLY, got " + opcode);
        }
        final BufferKind.Memory tx = bufferKind.allocate(BUFFER_BYTES);
        final BufferKind.Memory source = bufferKind.allocate(BUFFER_BYTES);
        final BufferKind.Memory rx = bufferKind.allocate(BUFFER_BYTES);
        txBuffer = tx.buffer();
        payloadSource = source.buffer();
        rxBuffer = rx.buffer();
        rxNio = rx.nio();
        rxView = rxNio.duplicate();
        rxArray = rxNio.hasArray() ? rxNio.array() : null;

        final SplittableRandom random = new SplittableRandom(PAYLOAD_SEED);
        for (int i = 0; i < payloadBytes; i++)
        {
            payloadSource.putByte(i, (byte)random.nextInt());
        }

        frameLength = buildInto(rxBuffer);
        if (expectedFrameLength(opcode, payloadBytes) != frameLength)
        {
            throw new IllegalStateException("frame length " + frameLength + " != expected " +
                expectedFrameLength(opcode, payloadBytes));
        }
        if (FrameStatus.OK != parser.parse(rxBuffer, 0, frameLength, true) ||
            payloadBytes != parser.payloadLength())
        {
            throw new IllegalStateException("built frame does not parse: " + parser.status());
        }
        if (frameLength != buildInto(txBuffer) || 0 != txBuffer.compareTo(rxBuffer))
        {
            throw new IllegalStateException("two builds of the same frame differ");
        }
    }

    /**
     * Length of the frames measured, Ethernet header to end of ICRC; bench/run.sh wire uses the same formula.
     *
     * @param opcode       RC_RDMA_WRITE_ONLY or RC_SEND_ONLY.
     * @param payloadBytes payload length.
     * @return 14 (Ethernet) + 20 (IPv4) + 8 (UDP) + 12 (BTH) [+ 16 (RETH)] + payload + pad to 4 + 4 (ICRC).
     */
    public static int expectedFrameLength(final Opcode opcode, final int payloadBytes)
    {
        final int paddedPayload = (payloadBytes + 3) & ~3;
        return EthernetHeader.LENGTH + Ipv4Header.LENGTH + UdpHeader.LENGTH + opcode.headerLength() + paddedPayload +
            Icrc.LENGTH;
    }

    /**
     * Build one frame with its ICRC into the transmit buffer.
     *
     * @return frame length.
     */
    @Benchmark
    public int build()
    {
        return buildInto(txBuffer);
    }

    /**
     * Parse the received frame and verify its ICRC.
     *
     * @return the parse status (OK), consumed by JMH.
     */
    @Benchmark
    public FrameStatus parseVerify()
    {
        return parser.parse(rxBuffer, 0, frameLength, true);
    }

    /**
     * Parse the received frame without the ICRC (diagnostic: parseVerify minus this is the ICRC's share).
     *
     * @return the parse status (OK), consumed by JMH.
     */
    @Benchmark
    public FrameStatus parseNoVerify()
    {
        return parser.parse(rxBuffer, 0, frameLength, false);
    }

    /**
     * Baseline: raw CRC32 over the whole frame, frameLength bytes.
     *
     * @return the CRC, consumed by JMH.
     */
    @Benchmark
    public long crc32Frame()
    {
        return rawCrc32(0, frameLength);
    }

    /**
     * Baseline: raw CRC32 over the IP header through the pad, the span the ICRC covers (frameLength - 18 bytes).
     *
     * @return the CRC, consumed by JMH.
     */
    @Benchmark
    public long crc32IpToPad()
    {
        return rawCrc32(EthernetHeader.LENGTH, frameLength - EthernetHeader.LENGTH - Icrc.LENGTH);
    }

    private long rawCrc32(final int offset, final int length)
    {
        final CRC32 crc = this.crc;
        crc.reset();
        final byte[] array = rxArray;
        if (null != array)
        {
            crc.update(array, offset, length);
        }
        else
        {
            final ByteBuffer view = rxView;
            view.limit(offset + length).position(offset);
            crc.update(view);
        }
        return crc.getValue();
    }

    private int buildInto(final UnsafeBuffer buffer)
    {
        final RoceFrameBuilder builder = this.builder;
        builder.wrap(buffer, 0)
            .ethernet(DESTINATION_MAC, SOURCE_MAC)
            .ipv4(SOURCE_IP, DESTINATION_IP)
            .udp(UDP_SOURCE_PORT)
            .bth(opcode, DEST_QP, PSN);
        if (rdmaWrite)
        {
            builder.reth().va(REMOTE_VA).rkey(RKEY).dmaLength(payloadBytes);
        }
        return builder.payload(payloadSource, 0, payloadBytes).finish();
    }
}
