package org.roce4j.transport.provider;

/**
 * A memory region registered with a {@link DeviceOps}: its keys and the I/O virtual addresses it covers,
 * [iova, iova + length).
 */
public interface MrOps
{
    /**
     * @return local key, for SGEs.
     */
    int lkey();

    /**
     * @return remote key, for peers' RDMA and atomic requests.
     */
    int rkey();

    /**
     * @return I/O virtual address of the first byte.
     */
    long iova();

    /**
     * @return length in bytes.
     */
    int length();

    /**
     * @return {@code org.roce4j.ib.AccessFlags} it was registered with.
     */
    int access();

    /**
     * @return false once deregistered, or invalidated by a peer's SEND with Invalidate.
     */
    boolean isValid();

    /**
     * @param va    an I/O virtual address.
     * @param bytes a length.
     * @return true when [va, va + bytes) lies inside the region.
     */
    boolean contains(long va, long bytes);

    /**
     * @param va an address inside the region.
     * @return its index in the registered buffer.
     */
    int indexOf(long va);
}
