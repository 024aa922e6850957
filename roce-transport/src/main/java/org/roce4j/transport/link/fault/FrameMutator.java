package org.roce4j.transport.link.fault;

import org.agrona.MutableDirectBuffer;

/**
 * The rewrite of a {@link FaultAction#MUTATE} rule ({@link FaultRule#mutate(FrameMutator)}): it changes a frame the
 * link has copied for it, in place, and may shorten or lengthen it within the room it is given. It runs on the thread
 * driving the link, for each frame the rule fires on.
 */
@FunctionalInterface
public interface FrameMutator
{
    /**
     * @param buffer   holding the frame to rewrite.
     * @param offset   of the frame.
     * @param length   of the frame.
     * @param capacity bytes available from {@code offset}: the rewritten frame must fit.
     * @return the length of the rewritten frame, 1 to {@code capacity}.
     */
    int mutate(MutableDirectBuffer buffer, int offset, int length, int capacity);
}
