package org.roce4j.cm.perftest;

import org.roce4j.cm.oob.OobProtocolException;

/**
 * The perftest peer announced a version roce4j does not speak, or no version at all; the message names it.
 */
public final class PerftestVersionException extends OobProtocolException
{
    private static final long serialVersionUID = 1L;

    /**
     * @param message what was wrong with the version.
     */
    public PerftestVersionException(final String message)
    {
        super(message);
    }
}
