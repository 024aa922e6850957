package org.roce4j.cm.perftest;

import java.io.IOException;
import java.time.Duration;

/**
 * The medium of perftest's out-of-band exchange, one per run: a TCP connection ({@link PerftestTcpChannel}, the
 * default) or, with perftest's -R, messages on an RDMA-CM QP. {@link PerftestSession} speaks the protocol's steps on
 * top of it; a channel only moves bytes and QP records in perftest's order: in every exchange the client writes
 * first and then reads, the server reads first and then writes (ctx_xchg_data and ctx_hand_shake).
 */
public interface PerftestChannel extends AutoCloseable
{
    /**
     * @return true for the side that connected (perftest run with a server name).
     */
    boolean isClient();

    /**
     * One data exchange (ctx_xchg_data): both sides send the same number of bytes.
     *
     * @param local this side's bytes.
     * @return the peer's bytes, as many as were sent.
     * @throws java.io.EOFException when the peer closed the channel before sending a byte (a client may retry: QEMU's
     *                              port forwarding accepts and closes while nothing listens in the guest yet).
     * @throws IOException          when the peer sent too little, nothing in time, or the channel failed.
     */
    byte[] exchange(byte[] local) throws IOException;

    /**
     * One QP record exchange (ctx_hand_shake), also used by perftest as a barrier.
     *
     * @param local this side's record.
     * @return the peer's record.
     * @throws IOException when the record is malformed, late or the channel failed.
     */
    PerftestDest exchangeDest(PerftestDest local) throws IOException;

    /**
     * What follows the closing handshake (ctx_close_connection): over TCP perftest 4.5 writes {@code "done"}.
     *
     * @throws IOException when the channel failed in a way that matters.
     */
    void finish() throws IOException;

    /**
     * @param timeout longest wait for each following read (a run can take long between two exchanges);
     *                Duration.ZERO waits forever.
     * @throws IOException when the channel cannot change it.
     */
    void readTimeout(Duration timeout) throws IOException;

    /**
     * @return the peer, for messages (e.g. {@code 10.77.0.2:18515}).
     */
    String peer();

    /**
     * Release the channel. Idempotent.
     *
     * @throws IOException when closing fails.
     */
    void close() throws IOException;
}
