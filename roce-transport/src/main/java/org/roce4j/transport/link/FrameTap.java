package org.roce4j.transport.link;

import org.agrona.DirectBuffer;

/**
 * Sees every frame a {@link TappedLink} sends and receives: for packet traces, decoders and pcap recording.
 */
@FunctionalInterface
public interface FrameTap
{
    /**
     * One frame. The bytes are valid only during the call.
     *
     * @param outgoing true for a frame the endpoint sent, false for one it received.
     * @param dropped  for an outgoing frame: the medium's fault injection dropped it (it never arrives).
     * @param buffer   holding the frame.
     * @param offset   of the Ethernet header.
     * @param length   of the frame.
     */
    void onFrame(boolean outgoing, boolean dropped, DirectBuffer buffer, int offset, int length);
}
