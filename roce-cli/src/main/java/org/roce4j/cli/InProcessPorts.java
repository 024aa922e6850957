package org.roce4j.cli;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.roce4j.transport.link.LinkAddress;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.addr.Mac;

/**
 * The two ports of the in-process fabric that {@code pingpong}, {@code perf} and {@code rping} use with
 * {@code --link memory}. Each has an IPv4 and a global IPv6 address, so its GID table reads as an rxe port's with
 * both: 0 the link-local GID of its MAC, 1 {@code ::ffff:192.168.77.x}, 2 {@code fd00:77::x} ({@code -g 2} /
 * {@code -x 2} run over IPv6). {@link #awaitServer} waits for the in-process server of {@code pingpong} and
 * {@code perf}.
 */
final class InProcessPorts
{
    /** The server's IPv4 address. */
    static final String SERVER_IP = "192.168.77.1";
    /** The client's IPv4 address. */
    static final String CLIENT_IP = "192.168.77.2";
    /** The server's port: MAC 02:00:00:00:00:01, 192.168.77.1 and fd00:77::1. */
    static final LinkAddress SERVER = new LinkAddress(Mac.parse("02:00:00:00:00:01"),
        List.of(Gid.parse(SERVER_IP), Gid.parse("fd00:77::1")));
    /** The client's port: MAC 02:00:00:00:00:02, 192.168.77.2 and fd00:77::2. */
    static final LinkAddress CLIENT = new LinkAddress(Mac.parse("02:00:00:00:00:02"),
        List.of(Gid.parse(CLIENT_IP), Gid.parse("fd00:77::2")));

    private InProcessPorts()
    {
    }

    /**
     * Wait for the in-process server of {@code pingpong} or {@code perf} to end.
     *
     * @param serverRun the server's run.
     * @param timeoutMs how long to wait.
     * @throws IOException what the server threw, or "the in-process server did not finish within N ms".
     */
    static void awaitServer(final CompletableFuture<Void> serverRun, final long timeoutMs) throws IOException
    {
        try
        {
            serverRun.get(timeoutMs, TimeUnit.MILLISECONDS);
        }
        catch (final ExecutionException ex)
        {
            throw new IOException(ex.getCause().getMessage(), ex.getCause());
        }
        catch (final TimeoutException ex)
        {
            throw new IOException("the in-process server did not finish within " + timeoutMs + " ms", ex);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", ex);
        }
    }
}
