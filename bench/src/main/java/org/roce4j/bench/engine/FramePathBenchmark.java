package org.roce4j.bench.engine;

import java.util.concurrent.TimeUnit;

import org.agrona.BufferUtil;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.roce4j.transport.link.FrameHandler;
import org.roce4j.transport.link.Link;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.link.memory.MemoryFabric;
import org.roce4j.transport.link.memory.MemoryLink;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrameBuilder;
import org.roce4j.wire.RoceFrameParser;

/**
 * The per-packet pieces of the engine's send and receive paths, one thread, no protocol state: building an RDMA
 * WRITE packet (headers, payload copy, IPv4 checksum, ICRC), parsing and verifying it, and handing it through the
 * memory fabric (commit into the peer's ring, poll it out). Single-threaded and short, these are steadier than the
 * two-thread streams on a shared machine, so they show the effect of hot-path changes; each has a memcpy of the
 * same payload beside it. Run with {@code -prof gc} to see that none allocates.
 *
 * <pre>
 * java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -jar bench/target/benchmarks.jar FramePathBenchmark
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED")
public class FramePathBenchmark
{
    /** IPv4 source of the frames. */
    private static final int SOURCE_IP = 0x0A4D_0001;
    /** IPv4 destination of the frames. */
    private static final int DESTINATION_IP = 0x0A4D_0002;
    /** Frame buffer size: a jumbo frame. */
    private static final int FRAME_BUFFER_BYTES = Link.MAX_IP_MTU;

    /** Payload bytes per packet: a small message, and a full packet at MTU 4096. */
    @Param({"64", "4096"})
    public int payloadBytes;

    private final RoceFrameBuilder builder = new RoceFrameBuilder();
    private final RoceFrameParser parser = new RoceFrameParser();
    private UnsafeBuffer frame;
    private UnsafeBuffer payload;
    private UnsafeBuffer target;
    private int frameLength;
    private MemoryFabric fabric;
    private MemoryLink sender;
    private MemoryLink receiver;
    private final Sink sink = new Sink();

    /** Counts what the fabric delivers, reading one byte of each frame. */
    static final class Sink implements FrameHandler
    {
        long bytes;

        /** {@inheritDoc} */
        public void onFrame(final MutableDirectBuffer buffer, final int offset, final int length)
        {
            bytes += length + buffer.getByte(offset + length - 1);
        }
    }

    /**
     * Allocate the buffers, build one frame and attach two fabric ports.
     */
    @Setup(Level.Trial)
    public void setUp()
    {
        frame = new UnsafeBuffer(BufferUtil.allocateDirectAligned(FRAME_BUFFER_BYTES, 64));
        payload = new UnsafeBuffer(BufferUtil.allocateDirectAligned(payloadBytes, 64));
        target = new UnsafeBuffer(BufferUtil.allocateDirectAligned(payloadBytes, 64));
        for (int i = 0; i < payloadBytes; i++)
        {
            payload.putByte(i, (byte)i);
        }
        frameLength = buildWrite();
        fabric = MemoryFabric.builder().ringCapacityBytes(16 * 1024 * 1024).build();
        sender = fabric.attach(new LinkAddress(0x02_00_00_00_77_01L, SOURCE_IP), LinkKind.JUMBO_MTU);
        receiver = fabric.attach(new LinkAddress(0x02_00_00_00_77_02L, DESTINATION_IP), LinkKind.JUMBO_MTU);
    }

    /**
     * Close the fabric.
     */
    @TearDown(Level.Trial)
    public void tearDown()
    {
        fabric.close();
    }

    /**
     * @return frame length: an RDMA WRITE ONLY with RETH, built the way the requester builds it.
     */
    @Benchmark
    public int buildWrite()
    {
        builder.wrap(frame, 0).ethernet(0L, 0x02_00_00_00_77_01L).ipv4(SOURCE_IP, DESTINATION_IP).udp(0xC011)
            .bth(Opcode.RC_RDMA_WRITE_ONLY, 0x12, 0x1000);
        builder.bthHeader().ackReq(true);
        builder.reth().va(0x10_0000L).rkey(0x1234).dmaLength(payloadBytes);
        frame.putBytes(builder.payloadOffset(), payload, 0, payloadBytes);
        builder.payloadLength(payloadBytes);
        return builder.finish();
    }

    /**
     * @return the status of parsing the frame with its ICRC verified, as the engine receives it.
     */
    @Benchmark
    public FrameStatus parseAndVerify()
    {
        return parser.parse(frame, 0, frameLength, true);
    }

    /**
     * @return bytes delivered: the frame copied into the peer's ring at commit and polled out in place.
     */
    @Benchmark
    public long fabricHandOff()
    {
        final int index = sender.tryClaim(frameLength);
        sender.sendBuffer().putBytes(index, frame, 0, frameLength);
        sender.commit(index, frameLength);
        receiver.poll(sink, 1);
        return sink.bytes;
    }

    /**
     * @return the baseline: one copy of the payload.
     */
    @Benchmark
    public int memcpyPayload()
    {
        target.putBytes(0, payload, 0, payloadBytes);
        return target.getByte(0);
    }
}
