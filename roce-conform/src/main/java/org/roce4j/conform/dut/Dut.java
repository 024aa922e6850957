package org.roce4j.conform.dut;

import java.util.List;

/**
 * The device under test, as the scenario runner drives it. {@link SelfDut} is roce4j itself over the in-memory
 * fabric; a DUT reached over a real link, driven by stock tools, will be another implementation.
 */
public interface Dut extends AutoCloseable
{
    /**
     * @return a short name for reports.
     */
    String name();

    /**
     * Create an RC QP (or a UD QP) and bring it to RTS towards the peer; register the memory it exposes.
     *
     * @param rc   true for RC, false for UD.
     * @param peer the peer's end.
     * @return the DUT's end.
     */
    DutQp connect(boolean rc, PeerQp peer);

    /**
     * Post a receive of {@code length} bytes at {@code offset} of the DUT's region.
     *
     * @param wrId   id.
     * @param offset into the region.
     * @param length bytes.
     */
    void postRecv(long wrId, int offset, int length);

    /**
     * Post a signalled work request on the send queue.
     *
     * @param work the request.
     */
    void postSend(DutWork work);

    /**
     * Give the DUT a chance to work (run its engine once, or read its tool's output).
     *
     * @return work done, 0 when idle.
     */
    int progress();

    /**
     * @return completions reported since the last call.
     */
    List<DutCompletion> pollCompletions();

    /**
     * @return true when the DUT's QP is in the error state.
     * @throws org.roce4j.conform.ConformSkip when the DUT does not show its QP state ({@link #showsQpState}).
     */
    boolean qpInError();

    /**
     * @return false when the DUT's QP state cannot be read from here (a stock tool does not report it): a step that
     *     needs it uses an observable substitute or SKIPs.
     */
    default boolean showsQpState()
    {
        return true;
    }

    /**
     * @return how {@link #qpInError} knew the QP state of a DUT that does not show it directly ({@link #showsQpState}
     *     false), for the report; null when it reads the state itself.
     */
    default String qpStateEvidence()
    {
        return null;
    }

    /**
     * @return false when the DUT's completions cannot be read from here (a stock tool does not report them): a step
     *     that needs them is not checked ({@link org.roce4j.conform.Steps#whereObservable}) or SKIPs.
     */
    default boolean showsCompletions()
    {
        return true;
    }

    /**
     * @return the length of the receives the DUT's tool keeps posted on its own (ib_send_bw's -s), 0 when the
     *     receives are the ones a scenario posts with {@link #postRecv}: a SEND scenario sizes its SENDs by it.
     */
    default int ownReceiveBytes()
    {
        return 0;
    }

    /**
     * @return the receives after which the DUT's tool ends its run where the peer sees it ({@link #runEnded}: a
     *     perftest UD server's -n), 0 when the DUT shows no such end.
     */
    default int receivesPerRun()
    {
        return 0;
    }

    /**
     * @param withinNs how long to wait for it.
     * @return true when the DUT's tool ended its run (it received {@link #receivesPerRun} messages) within the wait.
     * @throws org.roce4j.conform.ConformSkip when the DUT shows no such end ({@link #receivesPerRun} is 0).
     */
    default boolean runEnded(final long withinNs)
    {
        throw new org.roce4j.conform.ConformSkip("the end of the DUT's run: its tool does not show it");
    }

    /**
     * @throws org.roce4j.conform.ConformSkip when the DUT's exposed region has no remote read right (a READ of it can
     *     only be refused).
     */
    default void requireRemoteRead()
    {
    }

    /**
     * @return false when the DUT's exposed region has no remote write right (a scenario that needs known data in it
     *     reads it instead of writing it).
     */
    default boolean acceptsRemoteWrite()
    {
        return true;
    }

    /**
     * After the scenario's steps and verdict: bring the DUT's tool to the end of its run (a stock tool that waits for
     * more traffic would never exit). Nothing to do for most DUTs.
     *
     * @param context the scenario's context (its capture says which PSN the DUT expects next).
     */
    default void finish(final org.roce4j.conform.ConformContext context)
    {
    }

    /**
     * @param offset into the DUT's exposed region.
     * @param length bytes.
     * @return a copy of the DUT's memory.
     * @throws org.roce4j.conform.ConformSkip when the DUT's memory cannot be read from here.
     */
    byte[] readMemory(int offset, int length);

    /**
     * @param offset into the DUT's exposed region.
     * @param bytes  to store.
     * @throws org.roce4j.conform.ConformSkip when the DUT's memory cannot be written from here.
     */
    void writeMemory(int offset, byte[] bytes);

    /**
     * @return the DUT's non-zero counters, for the report.
     */
    String describeCounters();

    /**
     * Release the DUT's resources.
     */
    @Override
    void close();
}
