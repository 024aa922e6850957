package org.roce4j.bench.wire;

import java.nio.ByteBuffer;

import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * How the memory under a benchmark's {@link UnsafeBuffer} is obtained. The ICRC code feeds {@link java.util.zip.CRC32}
 * differently for each (see {@code org.roce4j.wire.Icrc}), so each is measured on its own.
 */
public enum BufferKind
{
    /** Off-heap memory wrapped as a {@link ByteBuffer}: {@code new UnsafeBuffer(directByteBuffer)}. */
    DIRECT,
    /** On-heap memory: {@code new UnsafeBuffer(byte[])}. */
    HEAP,
    /**
     * Off-heap memory wrapped by raw address only, as a link does over memory it gets from a native library
     * (a Netty direct ByteBuf's memoryAddress, a pcap buffer): {@code new UnsafeBuffer(address, length)}, so
     * {@link UnsafeBuffer#byteBuffer()} is null.
     */
    ADDRESS;

    /** Alignment of off-heap allocations: one cache line, as frame buffers of a link would be. */
    private static final int CACHE_LINE_BYTES = 64;

    /**
     * Memory of one kind plus a {@link ByteBuffer} view of the same bytes, for feeding the JDK's CRC32 directly.
     *
     * @param buffer the Agrona view the code under test gets.
     * @param nio    a ByteBuffer over the same bytes (heap or direct), for the raw CRC32 baseline; it also keeps
     *               the off-heap memory of {@link #ADDRESS} reachable.
     */
    public record Memory(UnsafeBuffer buffer, ByteBuffer nio)
    {
    }

    /**
     * Allocate zeroed memory of this kind.
     *
     * @param lengthBytes size of the memory.
     * @return the memory.
     */
    public Memory allocate(final int lengthBytes)
    {
        switch (this)
        {
            case DIRECT:
            {
                final ByteBuffer direct = BufferUtil.allocateDirectAligned(lengthBytes, CACHE_LINE_BYTES);
                return new Memory(new UnsafeBuffer(direct), direct);
            }
            case HEAP:
            {
                final ByteBuffer heap = ByteBuffer.allocate(lengthBytes);
                return new Memory(new UnsafeBuffer(heap.array()), heap);
            }
            case ADDRESS:
            {
                final ByteBuffer direct = BufferUtil.allocateDirectAligned(lengthBytes, CACHE_LINE_BYTES);
                return new Memory(new UnsafeBuffer(BufferUtil.address(direct), lengthBytes), direct);
            }
            default:
                throw new IllegalStateException("unknown buffer kind " + this);
        }
    }
}
