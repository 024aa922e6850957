package org.roce4j.transport.engine;

import org.roce4j.wire.Psn;

/**
 * One responder resource (IBA 9.4.4, rxe struct resp_res): what the responder remembers of a READ, an atomic, an
 * ATOMIC WRITE or a FLUSH so it
 * can answer a duplicate request by replaying instead of re-executing (IBA 9.4.4 for READs, 9.4.5 for atomics,
 * C9-105 ff.).
 */
final class ResponderResource
{
    static final int FREE = 0;
    static final int READ = 1;
    static final int ATOMIC = 2;
    /** An ATOMIC WRITE (rxe RXE_ATOMIC_WRITE_MASK): a duplicate is answered again, not executed again. */
    static final int ATOMIC_WRITE = 3;
    /** A FLUSH (rxe RXE_FLUSH_MASK): a duplicate is answered again (oA19-14, oA19-15). */
    static final int FLUSH = 4;

    int type = FREE;
    /** First PSN of the request's response range. */
    int firstPsn;
    /** Last PSN of the response range (first + packets - 1). */
    int lastPsn;
    /** READ: VA and length of the original request, and its rkey. */
    long vaOriginal;
    long length;
    int rkey;
    /** READ reply progress: next VA, bytes left, next PSN, whether a FIRST/ONLY already went out. */
    long va;
    long resid;
    int replyPsn;
    boolean replyStarted;
    /** True while a READ reply still has packets to send. */
    boolean replying;
    /** Atomic: the original value returned in the ATOMIC ACKNOWLEDGE (rxe res->atomic.orig_val). */
    long atomicOriginal;

    boolean contains(final int psn)
    {
        return FREE != type && Psn.inRange(psn, firstPsn, lastPsn);
    }
}
