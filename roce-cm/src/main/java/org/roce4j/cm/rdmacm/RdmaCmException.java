package org.roce4j.cm.rdmacm;

/**
 * A connection did not do what the caller waited for: it was rejected, the peer was unreachable, it ended, or no
 * event came in time. The message says which, with the REJ reason or the timeout.
 */
public final class RdmaCmException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    /** The event that came instead of the expected one; null when the wait timed out. */
    private final transient RdmaCmEvent event;

    /**
     * @param message what happened.
     * @param event   the event that came instead, or null.
     */
    public RdmaCmException(final String message, final RdmaCmEvent event)
    {
        super(message);
        this.event = event;
    }

    /**
     * @return the event that came instead of the expected one, or null when the wait timed out.
     */
    public RdmaCmEvent event()
    {
        return event;
    }
}
