package org.roce4j.transport.provider;

import org.roce4j.ib.MwType;

/**
 * A memory window allocated with {@link DeviceOps#allocMw} (verbs_context_ops alloc_mw). It is bound and
 * invalidated by work requests (BIND_MW, LOCAL_INV) posted through {@link QpOps#postSend}, as rdma-core's rxe
 * provider turns ibv_bind_mw into a BIND_MW work request.
 */
public interface MwOps
{
    /**
     * @return the window's type.
     */
    MwType type();

    /**
     * @return the rkey the engine holds now: the index in its upper 24 bits, the key of the last successful bind in
     *     the low 8 bits (rxe rxe_do_bind_mw).
     */
    int rkey();

    /**
     * @return true while bound to a memory region (rxe RXE_MW_STATE_VALID with a length).
     */
    boolean isBound();
}
