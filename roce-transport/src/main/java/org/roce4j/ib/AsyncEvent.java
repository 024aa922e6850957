package org.roce4j.ib;

/**
 * One asynchronous event and the object it concerns (a QP number, a CQ or SRQ handle, or the port number).
 *
 * @param type    what happened.
 * @param element QPN for QP events, the CQ or SRQ handle for those, 1 for port events.
 */
public record AsyncEvent(AsyncEventType type, int element)
{
    /**
     * @return e.g. {@code QP_FATAL element=0x11}.
     */
    public String toString()
    {
        return type + " element=0x" + Integer.toHexString(element);
    }
}
