package org.roce4j.cli.rdmaep;

import java.net.InetAddress;

/**
 * What one rdma_server or rdma_client run does (rdma_server.c's and rdma_client.c's globals, set by -s and -p, and
 * what rdma_getaddrinfo made of them).
 *
 * @param server       true for rdma_server, false for rdma_client.
 * @param address      -s resolved: the server's address to bind (rdma_server, default 0.0.0.0) or to connect to
 *                     (rdma_client); null when it did not resolve.
 * @param port         -p: the port, default 7471; -1 when it is no number.
 * @param addressError gai_strerror's text when -s or -p did not resolve (rdma_getaddrinfo's error), else null.
 * @param addressCode  rdma_getaddrinfo's return code for that error (-2 EAI_NONAME, -8 EAI_SERVICE), else 0.
 * @param timeoutMs    roce4j: give up a wait after this long; 0 waits forever, as the examples do.
 */
public record RdmaEpSettings(
    boolean server,
    InetAddress address,
    int port,
    String addressError,
    int addressCode,
    long timeoutMs)
{
    /** The examples' default port ("7471"). */
    public static final int DEFAULT_PORT = 7471;
    /** rdma_server's default address. */
    public static final String DEFAULT_SERVER_BIND = "0.0.0.0";
    /** rdma_client's default server. */
    public static final String DEFAULT_CLIENT_SERVER = "127.0.0.1";

    /**
     * @param asServer the role.
     * @param to       the address: the server's to bind, the client's to connect to.
     * @return a copy for that role.
     */
    public RdmaEpSettings role(final boolean asServer, final InetAddress to)
    {
        return new RdmaEpSettings(asServer, to, port, addressError, addressCode, timeoutMs);
    }
}
