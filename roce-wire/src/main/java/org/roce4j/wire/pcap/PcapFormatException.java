package org.roce4j.wire.pcap;

import java.io.IOException;

/**
 * A capture file that is not a readable pcap or pcapng file, or is cut short; the message names the file and the
 * problem.
 */
public final class PcapFormatException extends IOException
{
    private static final long serialVersionUID = 1L;

    /**
     * @param message naming the file and the problem.
     */
    public PcapFormatException(final String message)
    {
        super(message);
    }
}
