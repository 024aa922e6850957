package org.roce4j.transport.link.pcap;

import org.pcap4j.core.NotOpenException;
import org.pcap4j.core.PcapHandle;

/**
 * Stopping a thread that reads a libpcap handle, for the pcap link and the test captures alike: the one way that
 * works with every libpcap the project meets.
 */
public final class PcapReaderThread
{
    private PcapReaderThread()
    {
    }

    /**
     * Wake the reader until it has ended: pcap_next does not time out without traffic (TPACKET_V3 retires only
     * non-empty blocks), so each round calls pcap_breakloop (libpcap 1.10 signals an eventfd the read polls on) and
     * waits up to {@code joinTimeoutMs} for the thread. The caller must have told the reader to stop (its running
     * flag) first. An interrupt while waiting is kept for the caller's thread; the handle stays open.
     *
     * @param handle        the handle the reader reads.
     * @param reader        the reading thread.
     * @param joinTimeoutMs how long each round waits for the thread, e.g. the handle's read timeout.
     */
    public static void stop(final PcapHandle handle, final Thread reader, final long joinTimeoutMs)
    {
        boolean interrupted = false;
        while (reader.isAlive())
        {
            try
            {
                handle.breakLoop();
                reader.join(joinTimeoutMs);
            }
            catch (final NotOpenException ex)
            {
                break;
            }
            catch (final InterruptedException ex)
            {
                interrupted = true;
            }
        }
        if (interrupted)
        {
            Thread.currentThread().interrupt();
        }
    }
}
