package org.roce4j.cm.perftest;

import java.io.IOException;

/**
 * Opens the channel of one perftest run: {@link PerftestTcpConnector} for perftest's default TCP exchange; an
 * RDMA-CM connector (perftest -R) plugs in here, since the protocol on top ({@link PerftestSession}) is the same.
 */
@FunctionalInterface
public interface PerftestConnector
{
    /**
     * @return a connected channel (client) or the channel of the accepted client (server).
     * @throws IOException when no connection could be made in time.
     */
    PerftestChannel connect() throws IOException;
}
