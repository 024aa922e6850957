package org.roce4j.cm.ib;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.AhAttributes;
import org.roce4j.ib.QpAttrMask;
import org.roce4j.ib.QpAttributes;
import org.roce4j.ib.QpState;
import org.roce4j.ib.QpType;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WcOpcode;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.wire.addr.Gid;
import org.roce4j.verbs.AddressHandle;
import org.roce4j.verbs.CompletionQueue;
import org.roce4j.verbs.MemoryRegion;
import org.roce4j.verbs.ProtectionDomain;
import org.roce4j.verbs.QpInitAttributes;
import org.roce4j.verbs.QueuePair;
import org.roce4j.verbs.RdmaDevice;
import org.roce4j.verbs.RecvWorkRequest;
import org.roce4j.verbs.SendWorkRequest;
import org.roce4j.wire.header.DethHeader;
import org.roce4j.wire.mad.MadHeader;

/**
 * QP1 of a device, for the CM: the GSI QP (UD on QPN 1, Q_Key 0x80010000, P_Key 0xFFFF) brought to RTS, with a ring
 * of receive buffers (each the 40-byte network header area plus one 256-byte MAD) and a pool of send buffers.
 *
 * <p>Each received MAD is handed on with the sender's address taken from the packet itself (the IP source in the
 * header area, the DETH source QP; {@link RdmaDevice#initAhFromWc}), which is where the answer goes; the link
 * resolves the MAC. Sends go to QP1 of the destination through an address handle per destination GID (cached) with
 * hop limit 64, as rxe's CM MADs carry TTL 64 in the golden capture.
 *
 * <p>Threading: one thread polls and sends (the CM's).
 */
public final class GsiPort implements MadPort, AutoCloseable
{
    /** Receive buffers kept posted, and send buffers in the pool. */
    public static final int DEFAULT_DEPTH = 64;
    /** IP TTL / hop limit of CM MADs (rxe sends 64). */
    public static final int MAD_HOP_LIMIT = 64;
    /** Bytes of one receive buffer: the network header area and a MAD. */
    private static final int RECV_SLOT = WorkCompletion.GRH_BYTES + MadHeader.MAD_LENGTH;
    /** Largest number of cached address handles before the cache is emptied. */
    private static final int MAX_CACHED_AHS = 1024;
    /** The sign bit marks send WR IDs, so send and receive completions share one CQ. */
    private static final long SEND_WR_FLAG = Long.MIN_VALUE;

    /** Receives MADs from {@link #poll}. */
    @FunctionalInterface
    public interface MadHandler
    {
        /**
         * @param buffer holding the MAD (valid during the call only).
         * @param offset of its first byte.
         * @param length bytes of payload received (256 for a well-formed MAD).
         * @param from   the sender.
         */
        void onMad(MutableDirectBuffer buffer, int offset, int length, MadAddress from);
    }

    private final RdmaDevice device;
    private final int depth;
    private final ProtectionDomain pd;
    private final CompletionQueue cq;
    private final QueuePair qp;
    private final MemoryRegion recvRegion;
    private final MemoryRegion sendRegion;
    private final int[] freeSlots;
    private final WorkCompletion[] completions;
    private final RecvWorkRequest recvWr = new RecvWorkRequest();
    private final SendWorkRequest sendWr = new SendWorkRequest();
    private final AhAttributes scratch = new AhAttributes();
    private final Map<Gid, AddressHandle> handles = new HashMap<>();
    private int freeCount;
    private long unparseable;
    private boolean closed;

    /**
     * Create the GSI QP of a device and bring it to RTS.
     *
     * @param device the device (it must not have a GSI QP yet).
     * @param depth  receive and send buffers, 1..4096.
     * @throws IllegalStateException when the device already has a GSI QP.
     */
    public GsiPort(final RdmaDevice device, final int depth)
    {
        if (depth < 1 || depth > 4096)
        {
            throw new IllegalArgumentException("GSI depth must be 1..4096, got " + depth);
        }
        this.device = device;
        this.depth = depth;
        this.pd = device.allocPd();
        this.cq = device.createCq(2 * depth);
        this.qp = pd.createQp(new QpInitAttributes().qpType(QpType.GSI).cq(cq).cap(depth, depth, 1, 1, 0));
        final QpAttributes attr = new QpAttributes();
        attr.qpState = QpState.INIT;
        attr.pkeyIndex = 0;
        attr.qkey = DethHeader.GSI_QKEY;
        qp.modify(attr, QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.QKEY);
        attr.qpState = QpState.RTR;
        qp.modify(attr, QpAttrMask.STATE);
        attr.qpState = QpState.RTS;
        // rxe starts QP1's PSNs at 0 (the golden capture's first MAD has PSN 0).
        attr.sqPsn = 0;
        qp.modify(attr, QpAttrMask.STATE | QpAttrMask.SQ_PSN);
        this.recvRegion = pd.registerMemory(ByteBuffer.allocateDirect(depth * RECV_SLOT), AccessFlags.LOCAL_WRITE);
        this.sendRegion = pd.registerMemory(ByteBuffer.allocateDirect(depth * MadHeader.MAD_LENGTH), 0);
        this.freeSlots = new int[depth];
        for (int i = 0; i < depth; i++)
        {
            freeSlots[i] = depth - 1 - i;
        }
        this.freeCount = depth;
        this.completions = new WorkCompletion[Math.min(depth, 32)];
        for (int i = 0; i < completions.length; i++)
        {
            completions[i] = new WorkCompletion();
        }
        for (int i = 0; i < depth; i++)
        {
            postRecv(i);
        }
    }

    /**
     * Take completions: hand each received MAD to the handler and post its buffer again; free the buffers of
     * finished sends.
     *
     * @param handler gets the MADs.
     * @return completions taken.
     */
    public int poll(final MadHandler handler)
    {
        if (closed)
        {
            return 0;
        }
        final int n = cq.poll(completions);
        for (int i = 0; i < n; i++)
        {
            final WorkCompletion wc = completions[i];
            if (0 != (wc.wrId() & SEND_WR_FLAG))
            {
                freeSlots[freeCount++] = (int)(wc.wrId() & Integer.MAX_VALUE);
                continue;
            }
            final int slot = (int)wc.wrId();
            if (WcStatus.SUCCESS == wc.status() && WcOpcode.RECV == wc.opcode())
            {
                deliver(handler, wc, slot);
            }
            if (!closed && WcStatus.WR_FLUSH_ERR != wc.status())
            {
                postRecv(slot);
            }
        }
        return n;
    }

    private void deliver(final MadHandler handler, final WorkCompletion wc, final int slot)
    {
        final int base = slot * RECV_SLOT;
        final MutableDirectBuffer buffer = recvRegion.buffer();
        final MadAddress from;
        try
        {
            device.initAhFromWc(wc, buffer, base, scratch);
            from = new MadAddress(scratch.dgidHigh(), scratch.dgidLow(), wc.srcQp());
        }
        catch (final IllegalArgumentException ex)
        {
            // The engine always writes the header area; a completion without one is counted, never thrown.
            unparseable++;
            return;
        }
        handler.onMad(buffer, base + WorkCompletion.GRH_BYTES, wc.byteLen() - WorkCompletion.GRH_BYTES, from);
    }

    /**
     * Send a MAD to QP {@code to.qpn()} at {@code to}'s GID, from QP1 with the GSI Q_Key.
     *
     * @param to     destination.
     * @param mad    the 256 bytes.
     * @param offset where they start.
     * @return false when no send buffer is free or the destination cannot be reached from this device.
     */
    public boolean send(final MadAddress to, final DirectBuffer mad, final int offset)
    {
        if (closed || 0 == freeCount)
        {
            return false;
        }
        final AddressHandle ah;
        try
        {
            ah = handle(to);
        }
        catch (final IllegalArgumentException ex)
        {
            return false;
        }
        final int slot = freeSlots[--freeCount];
        final int base = slot * MadHeader.MAD_LENGTH;
        sendRegion.buffer().putBytes(base, mad, offset, MadHeader.MAD_LENGTH);
        sendWr.reset().wrId(SEND_WR_FLAG | slot).sendFlags(SendFlags.SIGNALED)
            .addSge(sendRegion, base, MadHeader.MAD_LENGTH).ud(ah, to.qpn(), DethHeader.GSI_QKEY);
        try
        {
            qp.postSend(sendWr);
        }
        catch (final RuntimeException ex)
        {
            freeSlots[freeCount++] = slot;
            return false;
        }
        return true;
    }

    private AddressHandle handle(final MadAddress to)
    {
        final Gid gid = new Gid(to.gidHigh(), to.gidLow());
        AddressHandle ah = handles.get(gid);
        if (null == ah)
        {
            if (handles.size() >= MAX_CACHED_AHS)
            {
                handles.values().forEach(AddressHandle::destroy);
                handles.clear();
            }
            // The source GID of the destination's family and scope, as the kernel picks the source address.
            ah = pd.createAh(new AhAttributes().dgid(to.gidHigh(), to.gidLow())
                .sgidIndex(Math.max(0, pd.device().sourceGidIndex(gid))).hopLimit(MAD_HOP_LIMIT));
            handles.put(gid, ah);
        }
        return ah;
    }

    private void postRecv(final int slot)
    {
        recvWr.reset().wrId(slot).addSge(recvRegion, (long)slot * RECV_SLOT, RECV_SLOT);
        qp.postRecv(recvWr);
    }

    /**
     * @return true when every send buffer is back (nothing in flight).
     */
    public boolean idle()
    {
        return depth == freeCount;
    }

    /**
     * @return received completions whose network header area could not be read (always 0 with a roce4j engine).
     */
    public long unparseable()
    {
        return unparseable;
    }

    /**
     * @return the GSI QP.
     */
    public QueuePair qp()
    {
        return qp;
    }

    /**
     * Destroy the QP, its buffers and address handles. Idempotent.
     */
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        if (!device.isClosed())
        {
            qp.destroy();
            handles.values().forEach(AddressHandle::destroy);
            handles.clear();
            cq.destroy();
            recvRegion.deregister();
            sendRegion.deregister();
            pd.dealloc();
        }
    }
}
