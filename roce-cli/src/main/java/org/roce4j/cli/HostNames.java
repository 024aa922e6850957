package org.roce4j.cli;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * Name resolution for the commands, with failures worded as getaddrinfo(3)'s gai_strerror words them, since the
 * tools the commands mirror print that text: ibv_rc_pingpong "Name or service not known for HOST:PORT"
 * (pp_client_exch_dest), perftest the same (check_add_port), rping "getaddrinfo failed (Name or service not known) -
 * invalid hostname or IP address" (get_addr).
 */
final class HostNames
{
    /** gai_strerror(EAI_NONAME) in glibc: what an unknown host name gives. */
    static final String EAI_NONAME_TEXT = "Name or service not known";

    private HostNames()
    {
    }

    /**
     * @param host a name or a literal address.
     * @return its first address.
     * @throws UnknownHostException when it does not resolve.
     */
    static InetAddress resolve(final String host) throws UnknownHostException
    {
        return InetAddress.getByName(host);
    }

    /**
     * The client's lookup of ibv_rc_pingpong (pp_client_exch_dest) and perftest (check_add_port): a failure reads
     * {@code "<gai_strerror> for HOST:PORT"}.
     *
     * @param host the server name.
     * @param port the port it will be reached on.
     * @return its first address.
     * @throws IOException {@code Name or service not known for HOST:PORT} when the name does not resolve.
     */
    static InetAddress resolveServer(final String host, final int port) throws IOException
    {
        try
        {
            return resolve(host);
        }
        catch (final UnknownHostException ex)
        {
            throw new IOException(gaiText(ex) + " for " + host + ":" + port, ex);
        }
    }

    /**
     * @param ex a failed lookup.
     * @return gai_strerror's text for it: the JDK reports {@code "HOST: TEXT"} with glibc's text on Linux; without
     *     one, EAI_NONAME's.
     */
    static String gaiText(final UnknownHostException ex)
    {
        final String message = ex.getMessage();
        if (null != message)
        {
            final int colon = message.lastIndexOf(": ");
            if (colon >= 0 && colon + 2 < message.length())
            {
                return message.substring(colon + 2);
            }
        }
        return EAI_NONAME_TEXT;
    }
}
