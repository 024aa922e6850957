package org.roce4j.bench.engine;

import java.util.ArrayList;
import java.util.List;

import org.agrona.BufferUtil;
import org.agrona.collections.Int2IntHashMap;
import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.QpType;
import org.roce4j.transport.link.Link;
import org.roce4j.verbs.CompletionQueue;
import org.roce4j.verbs.DeviceOptions;
import org.roce4j.verbs.MemoryRegion;
import org.roce4j.verbs.ProgressGroup;
import org.roce4j.verbs.ProtectionDomain;
import org.roce4j.verbs.QpInitAttributes;
import org.roce4j.verbs.QueuePair;
import org.roce4j.verbs.RdmaDevice;
import org.roce4j.verbs.RecvWorkRequest;

/**
 * One side of a benchmark: an INVOKER-mode device with a progress group of its own (so one thread drives it and
 * nothing else) or shared with the other side (one thread drives both), one protection domain, one send and one
 * receive CQ shared by all its QPs, and one registered
 * buffer every QP uses.
 *
 * <p>Threading: built and torn down by the thread that opens the {@link RcPair}; in between exactly one
 * benchmark thread uses it (Thread.start and Thread.join order the hand-overs).
 */
public final class Endpoint implements AutoCloseable
{
    /** Every access right, so one region serves WRITE, READ, SEND and atomics. */
    public static final int ALL_ACCESS = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE |
        AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC;
    /** Alignment of the registered buffer: a page, as ibv_reg_mr users normally allocate. */
    private static final int PAGE_BYTES = 4096;

    private final RdmaDevice device;
    private final ProtectionDomain pd;
    private final CompletionQueue sendCq;
    private final CompletionQueue recvCq;
    private final MemoryRegion memory;
    private final List<QueuePair> qps = new ArrayList<>();
    private final Int2IntHashMap indexByQpn = new Int2IntHashMap(-1);
    private final RecvWorkRequest recv = new RecvWorkRequest(1);

    Endpoint(final Link link, final String name, final RcPair.Options options, final ProgressGroup group)
    {
        device = RdmaDevice.open(link, DeviceOptions.invoker().progressGroup(group).name(name));
        try
        {
            pd = device.allocPd();
            sendCq = device.createCq(options.cqDepth());
            recvCq = device.createCq(options.cqDepth());
            final UnsafeBuffer buffer = new UnsafeBuffer(BufferUtil.allocateDirectAligned(options.memoryBytes(),
                PAGE_BYTES));
            memory = pd.registerMemory(buffer, ALL_ACCESS);
        }
        catch (final RuntimeException ex)
        {
            device.close();
            throw ex;
        }
    }

    QueuePair createQp(final RcPair.Options options)
    {
        final QueuePair qp = pd.createQp(new QpInitAttributes().qpType(QpType.RC).sendCq(sendCq).recvCq(recvCq)
            .cap(options.sendDepth(), options.recvDepth(), 1, 1, 0));
        indexByQpn.put(qp.qpNum(), qps.size());
        qps.add(qp);
        return qp;
    }

    /**
     * Post one receive covering the first half of the buffer, so a message of any benchmarked size fits (all
     * receives share those bytes: benchmarks do not check payloads).
     *
     * @param qpIndex which QP.
     */
    public void postReceive(final int qpIndex)
    {
        qps.get(qpIndex).postRecv(recv.reset().wrId(qpIndex).addSge(memory, 0, memory.length() / 2));
    }

    /**
     * @return the device.
     */
    public RdmaDevice device()
    {
        return device;
    }

    /**
     * @return the send completion queue of every QP.
     */
    public CompletionQueue sendCq()
    {
        return sendCq;
    }

    /**
     * @return the receive completion queue of every QP.
     */
    public CompletionQueue recvCq()
    {
        return recvCq;
    }

    /**
     * @return the registered buffer.
     */
    public MemoryRegion memory()
    {
        return memory;
    }

    /**
     * @param index 0 .. {@link #qpCount()} - 1, in creation order.
     * @return that QP.
     */
    public QueuePair qp(final int index)
    {
        return qps.get(index);
    }

    /**
     * @return number of QPs.
     */
    public int qpCount()
    {
        return qps.size();
    }

    /**
     * @param qpn a QP number of this endpoint.
     * @return its creation index, or -1.
     */
    public int indexOf(final int qpn)
    {
        return indexByQpn.get(qpn);
    }

    /**
     * Run one duty cycle of this endpoint's engine.
     *
     * @return work done.
     */
    public int progress()
    {
        return device.progress();
    }

    /**
     * Close the device (and its link); QPs and memory go with it.
     */
    public void close()
    {
        device.close();
    }
}
