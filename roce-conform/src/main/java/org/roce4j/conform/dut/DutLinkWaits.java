package org.roce4j.conform.dut;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;

import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.roce4j.transport.link.FrameHandler;
import org.roce4j.transport.link.Link;
import org.roce4j.transport.link.tunnel.TunnelLink;
import org.roce4j.wire.addr.Mac;
import org.roce4j.wire.header.Ipv4Header;

/**
 * The waits a remote DUT's out-of-band exchange needs on the conform peer's link: running a blocking exchange step
 * while the link is polled (the DUT resolves the peer's MAC while it moves its QP to RTR, so its ARP must be answered
 * meanwhile), and resolving the DUT's MAC. One home for {@link RemoteDut} and {@link RemoteRequesterDut}.
 */
final class DutLinkWaits
{
    /** How long ARP for the DUT may take. */
    private static final Duration RESOLVE_TIMEOUT = Duration.ofSeconds(10);

    private final Link link;
    private final IdleStrategy idle = new BackoffIdleStrategy(100, 10, 1_000, 1_000_000);

    /**
     * @param link the conform peer's raw link to the DUT.
     */
    DutLinkWaits(final Link link)
    {
        this.link = link;
    }

    /**
     * Run a blocking step on a thread of its own, polling the link here until it is done.
     *
     * @param name    the thread's name.
     * @param step    the step.
     * @param handler takes each frame polled meanwhile (the link answers ARP by itself).
     * @param <T>     the step's result.
     * @return the step's result.
     * @throws ExecutionException   when the step threw (its cause).
     * @throws InterruptedException when interrupted.
     */
    <T> T whilePolling(final String name, final Callable<T> step, final FrameHandler handler)
        throws ExecutionException, InterruptedException
    {
        final FutureTask<T> task = new FutureTask<>(step);
        final Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        thread.start();
        while (!task.isDone())
        {
            idle.idle(link.poll(handler, 16) + link.flush());
        }
        return task.get();
    }

    /**
     * The DUT's MAC, so frames to another IP can still be addressed to it: resolved by ARP on a link with layer 2 of
     * its own (the tunnel); 0 on other links, which fill in the destination per frame.
     *
     * @param ip the DUT's IPv4 address.
     * @return its MAC, or 0.
     */
    long resolveMac(final int ip)
    {
        if (!(link instanceof TunnelLink tunnel))
        {
            return 0;
        }
        tunnel.resolve(ip);
        final long deadlineNs = System.nanoTime() + RESOLVE_TIMEOUT.toNanos();
        while (Mac.NONE == tunnel.resolvedMac(ip))
        {
            if (System.nanoTime() - deadlineNs > 0)
            {
                throw new IllegalStateException("the DUT at " + Ipv4Header.addressToString(ip) + " did not " +
                    "answer ARP within " + RESOLVE_TIMEOUT);
            }
            idle.idle(link.poll((buffer, offset, length) -> {}, 16) + link.flush());
        }
        return tunnel.resolvedMac(ip);
    }
}
