package org.roce4j.cm.oob;

import java.io.IOException;

/**
 * The peer of an out-of-band exchange sent something malformed, too short, or nothing in time; the message says
 * which.
 */
public class OobProtocolException extends IOException
{
    private static final long serialVersionUID = 1L;

    /**
     * @param message what went wrong.
     */
    public OobProtocolException(final String message)
    {
        super(message);
    }

    /**
     * @param message what went wrong.
     * @param cause   the underlying error.
     */
    public OobProtocolException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
