package org.roce4j.transport.provider;

/**
 * A work request as a provider reads it while posting: what struct ibv_send_wr and struct ibv_recv_wr share, the
 * id and the scatter/gather list (a receive WR is no more). The Verbs API implements it as a flyweight over its own
 * work request objects, so posting passes no copy and allocates nothing.
 */
public interface WrView
{
    /**
     * @return the caller's id, returned in the completion.
     */
    long wrId();

    /**
     * @return SGEs in the list.
     */
    int numSge();

    /**
     * @param index 0 .. {@link #numSge()} - 1.
     * @return the SGE's I/O virtual address.
     */
    long sgeAddress(int index);

    /**
     * @param index 0 .. {@link #numSge()} - 1.
     * @return the SGE's length in bytes.
     */
    int sgeLength(int index);

    /**
     * @param index 0 .. {@link #numSge()} - 1.
     * @return the local key of the memory region the SGE lies in.
     */
    int sgeLkey(int index);
}
