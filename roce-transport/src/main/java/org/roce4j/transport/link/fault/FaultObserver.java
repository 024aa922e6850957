package org.roce4j.transport.link.fault;

import org.agrona.DirectBuffer;

/**
 * Sees each frame a {@link FaultyLink} decides, with the rule that acted on it, and each frame it held back as it
 * goes on: a tap placed where the faults are applied, so a recorder (the conform peer's capture) knows what was
 * dropped, rewritten, duplicated or delayed without deciding anything itself. Called on the thread driving the link;
 * the buffer is valid only during the call.
 */
public interface FaultObserver
{
    /**
     * A frame was decided.
     *
     * @param transmit true for a frame sent, false for one received.
     * @param buffer   holding the frame as it goes on (rewritten by a {@link FaultAction#MUTATE} rule), or as it was
     *                 when it is dropped.
     * @param offset   of the frame.
     * @param length   of the frame.
     * @param fired    the rule that acted on it, or null when none did (the random profile's faults are not named).
     */
    void onDecided(boolean transmit, DirectBuffer buffer, int offset, int length, FaultRule fired);

    /**
     * A frame held back (delayed or reordered) goes on now.
     *
     * @param transmit true for a frame sent, false for one received.
     * @param buffer   holding the frame.
     * @param offset   of the frame.
     * @param length   of the frame.
     */
    void onReleased(boolean transmit, DirectBuffer buffer, int offset, int length);
}
