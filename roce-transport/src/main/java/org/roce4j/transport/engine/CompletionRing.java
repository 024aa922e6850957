package org.roce4j.transport.engine;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.agrona.BitUtil;
import org.roce4j.ib.WcOpcode;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.transport.provider.CqOps;

/**
 * A completion queue: a single-producer (the engine) single-consumer (the polling thread) ring of completion
 * entries stored as parallel primitive arrays, so neither side allocates.
 *
 * <p>The producer writes an entry then publishes the tail with a release store; the consumer copies entries into
 * its own {@link WorkCompletion} objects and publishes the head. A full ring is a CQ overflow (IBA 11.4.2.1): the
 * producer reports it and the engine puts the QP in error.
 *
 * <p>A consumer may block: it registers itself as the waiter and parks; the producer unparks it after publishing.
 */
final class CompletionRing implements CqOps
{
    private final int handle;
    private final int depth;
    private final int mask;
    private final long[] wrId;
    private final byte[] status;
    private final byte[] opcode;
    private final int[] byteLen;
    private final int[] immData;
    private final int[] qpNum;
    private final int[] srcQp;
    private final int[] wcFlags;
    private final int[] invalidatedRkey;
    private final AtomicLong tail = new AtomicLong();
    private final AtomicLong head = new AtomicLong();
    private long producerTail;
    private volatile Thread waiter;
    private volatile boolean overflowed;

    /**
     * @param handle identifier for events and messages.
     * @param depth  entries the queue holds (cqe).
     */
    CompletionRing(final int handle, final int depth)
    {
        this.handle = handle;
        this.depth = depth;
        final int capacity = BitUtil.findNextPositivePowerOfTwo(Math.max(1, depth));
        this.mask = capacity - 1;
        wrId = new long[capacity];
        status = new byte[capacity];
        opcode = new byte[capacity];
        byteLen = new int[capacity];
        immData = new int[capacity];
        qpNum = new int[capacity];
        srcQp = new int[capacity];
        wcFlags = new int[capacity];
        invalidatedRkey = new int[capacity];
    }

    /**
     * @return identifier given at creation.
     */
    public int handle()
    {
        return handle;
    }

    /**
     * @return entries the queue holds.
     */
    public int depth()
    {
        return depth;
    }

    /**
     * Producer: append a completion.
     *
     * @param wrIdValue          work request id.
     * @param statusValue        status.
     * @param opcodeValue        opcode.
     * @param byteLenValue       byte count.
     * @param immValue           immediate data.
     * @param qpNumValue         local QP.
     * @param srcQpValue         remote QP (UD).
     * @param flagsValue         wc_flags.
     * @param invalidatedValue   invalidated rkey.
     * @return false when the ring is full (CQ overflow); nothing was written.
     */
    public boolean offer(
        final long wrIdValue,
        final WcStatus statusValue,
        final WcOpcode opcodeValue,
        final int byteLenValue,
        final int immValue,
        final int qpNumValue,
        final int srcQpValue,
        final int flagsValue,
        final int invalidatedValue)
    {
        final long t = producerTail;
        if (t - head.getAcquire() >= depth)
        {
            overflowed = true;
            return false;
        }
        final int i = (int)t & mask;
        wrId[i] = wrIdValue;
        status[i] = (byte)statusValue.ordinal();
        opcode[i] = (byte)opcodeValue.ordinal();
        byteLen[i] = byteLenValue;
        immData[i] = immValue;
        qpNum[i] = qpNumValue;
        srcQp[i] = srcQpValue;
        wcFlags[i] = flagsValue;
        invalidatedRkey[i] = invalidatedValue;
        producerTail = t + 1;
        // A volatile store (not just release): it must be ordered before the read of waiter below, or a consumer
        // that registered itself and then saw no completion could park and miss this one (Dekker pattern).
        tail.set(t + 1);
        final Thread blocked = waiter;
        if (null != blocked)
        {
            LockSupport.unpark(blocked);
        }
        return true;
    }

    /**
     * Consumer: copy up to {@code max} completions into the caller's objects.
     *
     * @param out    filled from index {@code offset}.
     * @param offset first slot of {@code out} to fill.
     * @param max    most completions to take.
     * @return number taken.
     */
    public int poll(final WorkCompletion[] out, final int offset, final int max)
    {
        final long h = head.getPlain();
        final long available = tail.getAcquire() - h;
        final int n = (int)Math.min(available, max);
        for (int k = 0; k < n; k++)
        {
            final int i = (int)(h + k) & mask;
            out[offset + k].set(wrId[i], WcStatus.fromOrdinal(status[i]), WcOpcode.fromOrdinal(opcode[i]),
                byteLen[i], immData[i], qpNum[i], srcQp[i], wcFlags[i], invalidatedRkey[i]);
        }
        if (n > 0)
        {
            head.setRelease(h + n);
        }
        return n;
    }

    /**
     * @return completions waiting to be polled.
     */
    public int size()
    {
        return (int)(tail.getAcquire() - head.getAcquire());
    }

    /**
     * @return true once an offer found the ring full.
     */
    public boolean hasOverflowed()
    {
        return overflowed;
    }

    /**
     * Consumer: park until a completion is published or the deadline passes (spurious wake-ups are possible; the
     * caller re-polls).
     *
     * @param timeoutNs most nanoseconds to park.
     */
    public void awaitCompletion(final long timeoutNs)
    {
        waiter = Thread.currentThread();
        try
        {
            // Volatile reads after the volatile write of waiter: pairs with the producer's volatile tail store.
            if (tail.get() == head.get())
            {
                LockSupport.parkNanos(this, timeoutNs);
            }
        }
        finally
        {
            waiter = null;
        }
    }
}
