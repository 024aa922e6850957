package org.roce4j.transport.link;

import org.agrona.MutableDirectBuffer;

/**
 * Receives frames polled from a {@link Link}.
 */
@FunctionalInterface
public interface FrameHandler
{
    /**
     * One received Ethernet frame (without FCS). The bytes are valid only during this call; the handler may parse
     * and modify them in place but must copy anything it keeps.
     *
     * @param buffer holding the frame.
     * @param offset of the Ethernet header.
     * @param length of the frame.
     */
    void onFrame(MutableDirectBuffer buffer, int offset, int length);
}
