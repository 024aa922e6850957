package org.roce4j.transport.link.fault;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * What a {@link FaultInjector} decided for the last frame it saw: dropped or not, corrupted, how many copies, the
 * extra delay, the later frames it waits for, the rule that acted and its rewrite. The link reads the verdict right
 * after {@link FaultInjector#decide} and acts on it; the next decision overwrites it (no allocation per frame).
 *
 * <p>Thread safety: read it on the thread that decided.
 */
public abstract class FaultVerdict
{
    boolean verdictDrop;
    boolean verdictCorrupted;
    int verdictCopies;
    long verdictDelayNs;
    int verdictReorder;
    FaultRule verdictRule;
    FrameMutator verdictMutator;

    FaultVerdict()
    {
    }

    /**
     * @return the rule that acted on the last decided frame, or null when none did.
     */
    public FaultRule firedRule()
    {
        return verdictRule;
    }

    /**
     * @return true when the last decided frame is to be rewritten by its rule's {@link FrameMutator}
     *     ({@link #mutate}).
     */
    public boolean mutates()
    {
        return null != verdictMutator;
    }

    /**
     * Rewrite the last decided frame, when {@link #mutates()}, into room the link keeps for it: copied there, then
     * changed by the rule's mutator. The frame where it was stays as it was.
     *
     * @param buffer holding the frame.
     * @param offset of the frame.
     * @param length of the frame.
     * @param into   where the rewritten frame goes, at 0; its capacity bounds the new length.
     * @return the length of the rewritten frame.
     * @throws IllegalStateException when the mutator returns a length outside 1..capacity.
     */
    public int mutate(final DirectBuffer buffer, final int offset, final int length, final MutableDirectBuffer into)
    {
        into.putBytes(0, buffer, offset, length);
        return mutateInPlace(into, length);
    }

    /**
     * Rewrite the last decided frame, when {@link #mutates()}, where it is: for a link whose frame already sits in
     * room of its own at 0 (the memory fabric's staging area), which {@link #mutate} would copy onto itself.
     *
     * @param frame  holding the frame at 0; its capacity bounds the new length.
     * @param length of the frame.
     * @return the length of the rewritten frame.
     * @throws IllegalStateException when the mutator returns a length outside 1..capacity.
     */
    public int mutateInPlace(final MutableDirectBuffer frame, final int length)
    {
        final int capacity = frame.capacity();
        final int mutatedLength = verdictMutator.mutate(frame, 0, length, capacity);
        if (mutatedLength < 1 || mutatedLength > capacity)
        {
            throw new IllegalStateException("mutation of " + verdictRule + " returned length " + mutatedLength +
                ", room is 1.." + capacity);
        }
        return mutatedLength;
    }

    /**
     * @return true when the last decided frame is dropped.
     */
    public boolean dropped()
    {
        return verdictDrop;
    }

    /**
     * @return true when the last decided frame was corrupted (its ICRC is bad now).
     */
    public boolean corrupted()
    {
        return verdictCorrupted;
    }

    /**
     * @return times to deliver the last decided frame (1 plus duplicates).
     */
    public int copies()
    {
        return verdictCopies;
    }

    /**
     * @return extra latency for the last decided frame, 0 for none.
     */
    public long verdictDelayNs()
    {
        return verdictDelayNs;
    }

    /**
     * @return later frames the last decided frame waits for, 0 for none.
     */
    public int reorderFrames()
    {
        return verdictReorder;
    }
}
