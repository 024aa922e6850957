package org.roce4j.transport.engine;

import java.util.concurrent.Callable;

import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.ib.AhAttributes;
import org.roce4j.ib.AsyncEvent;
import org.roce4j.ib.Mtu;
import org.roce4j.ib.MwType;
import org.roce4j.ib.QpAttributes;
import org.roce4j.ib.QpCapabilities;
import org.roce4j.ib.QpType;
import org.roce4j.transport.TransportCounters;
import org.roce4j.transport.cc.QpRate;
import org.roce4j.transport.provider.AhOps;
import org.roce4j.transport.provider.CqOps;
import org.roce4j.transport.provider.DeviceOps;
import org.roce4j.transport.provider.MrOps;
import org.roce4j.transport.provider.MwOps;
import org.roce4j.transport.provider.QpOps;
import org.roce4j.transport.provider.RqOps;
import org.roce4j.wire.FrameStatusCounters;

/**
 * The engine's side of the provider boundary, as rxe_verbs.c is rxe's: each {@link DeviceOps} call becomes a call
 * on the {@link RoceEngine} and its parts. The objects the boundary passes are the engine's own (a {@link QpContext}
 * is the {@link QpOps}, a {@link CompletionRing} the {@link CqOps}, a {@link ReceiveQueue} the {@link RqOps}, a
 * {@link MemoryRegionEntry} the {@link MrOps}, an {@link AddressVector} the {@link AhOps}), so the data path crosses
 * no wrapper; the casts below take them back, as rxe's to_rqp() and friends do.
 */
final class RoceVerbs implements DeviceOps
{
    private final RoceEngine engine;

    /**
     * @param engine the engine of the device.
     */
    RoceVerbs(final RoceEngine engine)
    {
        this.engine = engine;
    }

    /** {@inheritDoc} */
    public int doWork()
    {
        return engine.doWork();
    }

    /** {@inheritDoc} */
    public void onStart()
    {
        engine.onStart();
    }

    /** {@inheritDoc} */
    public void onClose()
    {
        engine.onClose();
    }

    /** {@inheritDoc} */
    public long earliestDeadlineNs()
    {
        return engine.earliestDeadlineNs();
    }

    /** {@inheritDoc} */
    public <T> T invoke(final Callable<T> command)
    {
        return engine.invoke(command);
    }

    /** {@inheritDoc} */
    public NanoClock clock()
    {
        return engine.clock();
    }

    /** {@inheritDoc} */
    public Mtu activeMtu()
    {
        return engine.activeMtu();
    }

    /** {@inheritDoc} */
    public int gidTableLength()
    {
        return engine.gids.length();
    }

    /** {@inheritDoc} */
    public long gidHigh(final int index)
    {
        return engine.gids.high(index);
    }

    /** {@inheritDoc} */
    public long gidLow(final int index)
    {
        return engine.gids.low(index);
    }

    /** {@inheritDoc} */
    public int gidIndexOf(final long gidHigh, final long gidLow)
    {
        return engine.gids.indexOf(gidHigh, gidLow);
    }

    /** {@inheritDoc} */
    public TransportCounters counters()
    {
        return engine.counters();
    }

    /** {@inheritDoc} */
    public FrameStatusCounters frameCounters()
    {
        return engine.frameCounters();
    }

    /** {@inheritDoc} */
    public AsyncEvent pollEvent()
    {
        return engine.pollEvent();
    }

    /** {@inheritDoc} */
    public Throwable lastInternalError()
    {
        return engine.lastInternalError();
    }

    /** {@inheritDoc} */
    public int allocHandle()
    {
        return engine.nextHandle();
    }

    /** {@inheritDoc} */
    public CqOps createCq(final int cqe)
    {
        return new CompletionRing(engine.nextHandle(), cqe);
    }

    /** {@inheritDoc} */
    public RqOps createSrq(final int maxWr, final int maxSge)
    {
        return new ReceiveQueue(engine.nextHandle(), maxWr, maxSge);
    }

    /** {@inheritDoc} */
    public QpOps createQp(
        final QpType type,
        final int pdHandle,
        final QpCapabilities caps,
        final CqOps sendCq,
        final CqOps recvCq,
        final RqOps srq,
        final boolean signalAll)
    {
        return engine.createQp(
            type, pdHandle, caps, (CompletionRing)sendCq, (CompletionRing)recvCq, (ReceiveQueue)srq, signalAll);
    }

    /** {@inheritDoc} */
    public void modifyQp(final QpOps qp, final QpAttributes attr, final int mask)
    {
        engine.modifyQp((QpContext)qp, attr, mask);
    }

    /** {@inheritDoc} */
    public void queryQp(final QpOps qp, final QpAttributes out)
    {
        engine.queryQp((QpContext)qp, out);
    }

    /** {@inheritDoc} */
    public String gidTableListing()
    {
        return engine.gids.listing();
    }

    /** {@inheritDoc} */
    public QpRate qpRate(final QpOps qp)
    {
        return engine.qpRate((QpContext)qp);
    }

    /** {@inheritDoc} */
    public void destroyQp(final QpOps qp)
    {
        engine.destroyQp((QpContext)qp);
    }

    /** {@inheritDoc} */
    public void attachMcast(final QpOps qp, final long gidHigh, final long gidLow)
    {
        engine.mcast.attach((QpContext)qp, gidHigh, gidLow);
    }

    /** {@inheritDoc} */
    public void detachMcast(final QpOps qp, final long gidHigh, final long gidLow)
    {
        engine.mcast.detach((QpContext)qp, gidHigh, gidLow);
    }

    /** {@inheritDoc} */
    public MrOps registerMemory(final long iova, final int access, final int pdHandle, final UnsafeBuffer memory)
    {
        return engine.registerMemory(iova, access, pdHandle, memory);
    }

    /** {@inheritDoc} */
    public void deregisterMemory(final MrOps region)
    {
        engine.deregisterMemory((MemoryRegionEntry)region);
    }

    /** {@inheritDoc} */
    public MwOps allocMw(final MwType type, final int pdHandle)
    {
        return engine.mwTable.alloc(type, pdHandle);
    }

    /** {@inheritDoc} */
    public void deallocMw(final MwOps window)
    {
        engine.mwTable.dealloc((MemoryWindowEntry)window);
    }

    /** {@inheritDoc} */
    public AhOps createAh(final AhAttributes attributes)
    {
        final AddressVector vector = new AddressVector();
        engine.resolveAddress(attributes, vector);
        engine.warmNeighbour(vector);
        return vector;
    }

    /**
     * @return e.g. {@code roce4j device over memory:10.0.0.1}.
     */
    public String toString()
    {
        return "roce4j device over " + engine.link().name();
    }
}
