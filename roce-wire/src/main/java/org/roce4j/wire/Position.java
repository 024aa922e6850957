package org.roce4j.wire;

/**
 * Where a packet sits in its message (IBA 9.2.1 "first, middle, last, only").
 */
public enum Position
{
    /** Starts a multi-packet message. */
    FIRST,
    /** Inside a multi-packet message. */
    MIDDLE,
    /** Ends a multi-packet message. */
    LAST,
    /** The whole message in one packet (also every single-packet opcode such as ACK or READ request). */
    ONLY;

    /**
     * @return true for FIRST and ONLY: the packet starts a message.
     */
    public boolean isStart()
    {
        return FIRST == this || ONLY == this;
    }

    /**
     * @return true for LAST and ONLY: the packet ends a message.
     */
    public boolean isEnd()
    {
        return LAST == this || ONLY == this;
    }
}
