package org.roce4j.verbs;

import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.ib.AccessFlags;
import org.roce4j.transport.provider.MrOps;

/**
 * A registered memory region (struct ibv_mr): memory the engine may read and write for local SGEs (by lkey) and for
 * remote RDMA and atomic requests (by rkey), addressed by I/O virtual addresses [iova, iova + length).
 *
 * <p>Index {@code i} of {@link #buffer()} is address {@code iova() + i}; {@link #address(long)} does that sum.
 */
public final class MemoryRegion
{
    private final ProtectionDomain pd;
    private final MrOps entry;
    private final UnsafeBuffer buffer;
    private volatile boolean deregistered;

    MemoryRegion(final ProtectionDomain pd, final MrOps entry, final UnsafeBuffer buffer)
    {
        this.pd = pd;
        this.entry = entry;
        this.buffer = buffer;
    }

    /**
     * @return local key, for SGEs.
     */
    public int lkey()
    {
        return entry.lkey();
    }

    /**
     * @return remote key, for peers' RDMA and atomic requests.
     */
    public int rkey()
    {
        return entry.rkey();
    }

    /**
     * @return I/O virtual address of the first byte.
     */
    public long iova()
    {
        return entry.iova();
    }

    /**
     * @return length in bytes.
     */
    public int length()
    {
        return entry.length();
    }

    /**
     * @return {@link AccessFlags} it was registered with.
     */
    public int access()
    {
        return entry.access();
    }

    /**
     * @return the memory; index 0 is {@link #iova()}.
     */
    public AtomicBuffer buffer()
    {
        return buffer;
    }

    /**
     * @param offset byte offset into the region.
     * @return the I/O virtual address of that byte, for SGEs and remote addresses.
     */
    public long address(final long offset)
    {
        return entry.iova() + offset;
    }

    /**
     * @return the protection domain.
     */
    public ProtectionDomain pd()
    {
        return pd;
    }

    /**
     * @return false once deregistered, or invalidated by a peer's SEND with Invalidate naming its rkey.
     */
    public boolean isValid()
    {
        return !deregistered && entry.isValid();
    }

    /**
     * @return true once {@link #deregister()} ran.
     */
    public boolean isDeregistered()
    {
        return deregistered;
    }

    /**
     * Deregister (ibv_dereg_mr): its keys stop working at once; WRs still using it fail with protection errors.
     *
     * @throws IllegalStateException when already deregistered.
     */
    public void deregister()
    {
        pd.deregister(this);
    }

    MrOps ops()
    {
        return entry;
    }

    UnsafeBuffer unsafeBuffer()
    {
        return buffer;
    }

    void markDeregistered()
    {
        deregistered = true;
    }

    /**
     * @return e.g. {@code MR lkey=0x.. rkey=0x.. iova=0x.. len=4096 access=LOCAL_WRITE|REMOTE_READ}.
     */
    public String toString()
    {
        return entry + (deregistered ? " (deregistered)" : "");
    }
}
