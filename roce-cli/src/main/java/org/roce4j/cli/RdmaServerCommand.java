package org.roce4j.cli;

import picocli.CommandLine.Command;

/**
 * {@code roce rdma_server}: rdma-core's rdma_server (librdmacm/examples/rdma_server.c) on roce4j: listen, accept one
 * RC connection through librdmacm's endpoint calls, receive 16 bytes, send 16 bytes back, disconnect; its lines
 * ("rdma_server: start", "rdma_server: end 0") and exit status.
 */
@Command(
    name = "rdma_server",
    exitCodeOnInvalidInput = RdmaEpCommand.EXIT_USAGE,
    exitCodeOnExecutionException = CmToolRunner.EXIT_FAILED,
    description = {
        "One RC connection through librdmacm's endpoint API, like rdma-core's rdma_server: listen on -s (default " +
            "0.0.0.0) port -p (7471), accept, receive 16 bytes, send 16 bytes, disconnect.",
        "With --link memory (the default) an rdma_client runs against it in this process.",
        "Exit codes as rdma_server's return status: 0; 1 bad options; 254 an address that does not resolve; 248 a " +
            "port that is no number; 255 a failed call (perror's line on stderr says which)."})
public final class RdmaServerCommand extends RdmaEpCommand
{
    @Override
    boolean server()
    {
        return true;
    }
}
