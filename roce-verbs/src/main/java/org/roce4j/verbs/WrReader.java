package org.roce4j.verbs;

import org.agrona.MutableDirectBuffer;
import org.roce4j.ib.WrOpcode;
import org.roce4j.transport.provider.AhOps;
import org.roce4j.transport.provider.MrOps;
import org.roce4j.transport.provider.MwOps;
import org.roce4j.transport.provider.SendWrView;

/**
 * A work request as the provider reads it while posting: a flyweight over the caller's {@link SendWorkRequest} or
 * {@link RecvWorkRequest}, wrapped for one post call, so posting copies nothing twice and allocates nothing. One
 * per queue (a QP's send queue, a QP's or an SRQ's receive queue), used by that queue's one posting thread.
 */
final class WrReader implements SendWrView
{
    private final RdmaDevice device;
    private WorkRequest<?> wr;
    private SendWorkRequest send;

    /**
     * @param device the device whose registered memory inline data is copied from.
     */
    WrReader(final RdmaDevice device)
    {
        this.device = device;
    }

    /**
     * @param request a checked send WR.
     * @return this.
     */
    WrReader wrap(final SendWorkRequest request)
    {
        wr = request;
        send = request;
        return this;
    }

    /**
     * @param request a checked receive WR.
     * @return this.
     */
    WrReader wrap(final RecvWorkRequest request)
    {
        wr = request;
        send = null;
        return this;
    }

    /** {@inheritDoc} */
    public long wrId()
    {
        return wr.wrId();
    }

    /** {@inheritDoc} */
    public int numSge()
    {
        return wr.numSge();
    }

    /** {@inheritDoc} */
    public long sgeAddress(final int index)
    {
        return wr.sge(index).addr();
    }

    /** {@inheritDoc} */
    public int sgeLength(final int index)
    {
        return wr.sge(index).length();
    }

    /** {@inheritDoc} */
    public int sgeLkey(final int index)
    {
        return wr.sge(index).lkey();
    }

    /** {@inheritDoc} */
    public WrOpcode opcode()
    {
        return send.opcode();
    }

    /** {@inheritDoc} */
    public int sendFlags()
    {
        return send.sendFlags();
    }

    /**
     * Copy the bytes the SGEs name out of their registered regions (QueuePair checked that each lies inside a valid
     * region with its lkey).
     *
     * @param target the WQE's inline area.
     * @return bytes copied.
     */
    public int copyInline(final MutableDirectBuffer target)
    {
        int offset = 0;
        for (int i = 0, n = send.numSge(); i < n; i++)
        {
            final ScatterGatherElement sge = send.sge(i);
            final int length = sge.length();
            if (length > 0)
            {
                final MemoryRegion region = device.regions().get(sge.lkey());
                target.putBytes(offset, region.unsafeBuffer(), region.ops().indexOf(sge.addr()), length);
                offset += length;
            }
        }
        return offset;
    }

    /** {@inheritDoc} */
    public long remoteAddress()
    {
        return send.remoteAddr();
    }

    /** {@inheritDoc} */
    public int rkey()
    {
        return send.rkey();
    }

    /** {@inheritDoc} */
    public long compareAdd()
    {
        return send.compareAdd();
    }

    /** {@inheritDoc} */
    public long swap()
    {
        return send.swap();
    }

    /** {@inheritDoc} */
    public long atomicWriteValue()
    {
        return send.atomicWriteValue();
    }

    /** {@inheritDoc} */
    public long flushLength()
    {
        return send.flushLength();
    }

    /** {@inheritDoc} */
    public int flushType()
    {
        return send.flushType();
    }

    /** {@inheritDoc} */
    public int flushLevel()
    {
        return send.flushLevel();
    }

    /** {@inheritDoc} */
    public int immData()
    {
        return send.immData();
    }

    /** {@inheritDoc} */
    public int invalidateRkey()
    {
        return send.invalidateRkey();
    }

    /** {@inheritDoc} */
    public AhOps ah()
    {
        return send.ah().ops();
    }

    /** {@inheritDoc} */
    public int remoteQpn()
    {
        return send.remoteQpn();
    }

    /** {@inheritDoc} */
    public int remoteQkey()
    {
        return send.remoteQkey();
    }

    /** {@inheritDoc} */
    public MwOps bindMw()
    {
        return null == send.bindMw() ? null : send.bindMw().ops();
    }

    /** {@inheritDoc} */
    public int bindMwRkey()
    {
        return null == send.bindMw() ? 0 : send.bindMw().rkey();
    }

    /** {@inheritDoc} */
    public int bindNewRkey()
    {
        return send.bindNewRkey();
    }

    /** {@inheritDoc} */
    public MrOps bindMr()
    {
        return null == send.bindMr() ? null : send.bindMr().ops();
    }

    /** {@inheritDoc} */
    public long bindAddress()
    {
        return send.bindAddr();
    }

    /** {@inheritDoc} */
    public long bindLength()
    {
        return send.bindLength();
    }

    /** {@inheritDoc} */
    public int bindAccess()
    {
        return send.bindAccess();
    }
}
