package org.roce4j.transport.link;

import java.util.Arrays;

import org.agrona.DirectBuffer;

/**
 * The taps installed on a link with {@link Link#tapFrames(FrameTap)}: what a link calls as each frame crosses its
 * medium. Calling with no tap installed costs one array-length check; taps are added before traffic starts, on the
 * thread driving the link.
 */
public final class FrameTaps
{
    private static final FrameTap[] NONE = new FrameTap[0];

    private FrameTap[] taps = NONE;

    /**
     * @param tap to call from now on.
     */
    public void add(final FrameTap tap)
    {
        if (null == tap)
        {
            throw new IllegalArgumentException("tap must not be null");
        }
        final FrameTap[] more = Arrays.copyOf(taps, taps.length + 1);
        more[taps.length] = tap;
        taps = more;
    }

    /**
     * @return true when no tap is installed.
     */
    public boolean isEmpty()
    {
        return 0 == taps.length;
    }

    /**
     * Show a frame to every tap.
     *
     * @param outgoing true for a frame put on the medium, false for one taken from it.
     * @param buffer   holding the frame.
     * @param offset   of the frame.
     * @param length   of the frame.
     */
    public void onFrame(final boolean outgoing, final DirectBuffer buffer, final int offset, final int length)
    {
        for (final FrameTap tap : taps)
        {
            tap.onFrame(outgoing, false, buffer, offset, length);
        }
    }
}
