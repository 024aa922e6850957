package org.roce4j.cli;

import picocli.CommandLine.Command;

/**
 * {@code roce rdma_client}: rdma-core's rdma_client (librdmacm/examples/rdma_client.c) on roce4j: connect one RC
 * connection through librdmacm's endpoint calls, send 16 bytes, receive 16 bytes, disconnect; its lines
 * ("rdma_client: start", "rdma_client: end 0") and exit status.
 */
@Command(
    name = "rdma_client",
    exitCodeOnInvalidInput = RdmaEpCommand.EXIT_USAGE,
    exitCodeOnExecutionException = CmToolRunner.EXIT_FAILED,
    description = {
        "One RC connection through librdmacm's endpoint API, like rdma-core's rdma_client: connect to -s (default " +
            "127.0.0.1) port -p (7471), send 16 bytes, receive 16 bytes, disconnect.",
        "With --link memory (the default) an rdma_server runs for it in this process.",
        "Exit codes as rdma_client's return status: 0; 1 bad options; 254 an address that does not resolve; 248 a " +
            "port that is no number; 255 a failed call (perror's line on stderr says which)."})
public final class RdmaClientCommand extends RdmaEpCommand
{
    @Override
    boolean server()
    {
        return false;
    }
}
