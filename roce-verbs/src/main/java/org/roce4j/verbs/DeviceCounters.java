package org.roce4j.verbs;

import java.util.Locale;
import java.util.function.ObjLongConsumer;

import org.roce4j.transport.TransportCounter;
import org.roce4j.transport.TransportCounters;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.transport.link.LinkCounters;
import org.roce4j.wire.EnumCounters;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.FrameStatusCounters;

/**
 * Every counter of a device, live (not a snapshot): the engine's transport counters (drops, NAKs, retries,
 * completions...), the frame parser's per-status counts, and the link's counters. Any thread may read them.
 */
public final class DeviceCounters
{
    private final TransportCounters transport;
    private final FrameStatusCounters frames;
    private final LinkCounters link;

    DeviceCounters(final TransportCounters transport, final FrameStatusCounters frames, final LinkCounters link)
    {
        this.transport = transport;
        this.frames = frames;
        this.link = link;
    }

    /**
     * @return the engine's transport counters.
     */
    public TransportCounters transport()
    {
        return transport;
    }

    /**
     * @return per-{@link FrameStatus} counts of received frames (OK and every rejection reason).
     */
    public FrameStatusCounters frames()
    {
        return frames;
    }

    /**
     * @return the link's counters.
     */
    public LinkCounters link()
    {
        return link;
    }

    /**
     * @param counter a transport counter.
     * @return its value.
     */
    public long get(final TransportCounter counter)
    {
        return transport.get(counter);
    }

    /**
     * @param counter a link counter.
     * @return its value.
     */
    public long get(final LinkCounter counter)
    {
        return link.get(counter);
    }

    /**
     * @param status a frame status.
     * @return frames counted with it.
     */
    public long get(final FrameStatus status)
    {
        return frames.get(status);
    }

    /**
     * Visit every counter, zeros included, in the order of {@link #describe()} (transport, frames, link), each with
     * its name as {@link #describe()} gives it ({@code transport.acks_sent}).
     *
     * @param visitor takes each counter's name and value.
     */
    public void forEach(final ObjLongConsumer<String> visitor)
    {
        visit("transport", transport, visitor);
        visit("frames", frames, visitor);
        visit("link", link, visitor);
    }

    /**
     * @return one line per non-zero counter, e.g. {@code transport.acks_sent 12}, transport first, then frames, then
     *     link; an empty string when every counter is zero.
     */
    public String describe()
    {
        final StringBuilder sb = new StringBuilder();
        forEach((name, value) ->
        {
            if (0 != value)
            {
                sb.append(name).append(' ').append(value).append('\n');
            }
        });
        return sb.toString();
    }

    /**
     * @return {@link #describe()}.
     */
    public String toString()
    {
        return describe();
    }

    private static <E extends Enum<E>> void visit(
        final String group, final EnumCounters<E> counters, final ObjLongConsumer<String> visitor)
    {
        for (final E key : counters.keys())
        {
            visitor.accept(group + '.' + key.name().toLowerCase(Locale.ROOT), counters.get(key));
        }
    }
}
