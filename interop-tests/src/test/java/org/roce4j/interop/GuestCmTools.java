package org.roce4j.interop;

import java.io.IOException;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * What the tests of librdmacm's example programs (udaddy, ucmatose, rdma_server / rdma_client) share: waiting until
 * a program in the guest listens, starting roce4j's server in the background and waiting for it, and finding a
 * program's lines in order in its log.
 */
final class GuestCmTools
{
    private GuestCmTools()
    {
    }

    /**
     * Wait until a program in the guest has an rdma_cm id in LISTEN on a port (iproute2's rdma tool).
     *
     * @param peer    the guest.
     * @param port    the port.
     * @param program the background program's name in the guest (its log goes into the failure message).
     * @throws IOException when the guest cannot be asked.
     */
    static void awaitListening(final RxePeer peer, final int port, final String program) throws IOException
    {
        final RxePeer.Result result = peer.run("timeout 30 sh -c 'until rdma res show cm_id 2>/dev/null | " +
            "grep LISTEN | grep -q \":" + port + " \"; do usleep 20000; done'", Duration.ofSeconds(60));
        assertEquals(0, result.exitCode(), program + " did not listen on " + port + ":\n" + result.output() + "\n" +
            peer.log(program));
    }

    /**
     * The lines appear in this order in the log (which may hold other lines between them).
     *
     * @param expected the lines.
     * @param log      the program's output.
     * @param context  for the failure message.
     */
    static void assertInOrder(final List<String> expected, final String log, final String context)
    {
        int next = 0;
        for (final String line : log.lines().map(String::strip).toList())
        {
            if (next < expected.size() && expected.get(next).equals(line))
            {
                next++;
            }
        }
        assertEquals(expected.size(), next, "the line '" + (next < expected.size() ? expected.get(next) : "") +
            "' missing or out of order\n" + context);
    }

    /**
     * Wait for roce4j's side, run in the background, for the rest of the case's time.
     *
     * @param peer   the guest (its case budget).
     * @param roce   the run.
     * @param what   its name, e.g. "roce udaddy".
     * @param rxeLog what the guest's program said, for the failure message.
     * @return how the run ended.
     */
    static RoceRun join(final RxePeer peer, final CompletableFuture<RoceRun> roce, final String what,
        final String rxeLog)
    {
        try
        {
            return roce.get(peer.caseTimeLeft().toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (final Exception ex)
        {
            throw new AssertionError(what + " did not finish; the guest's program said:\n" + rxeLog, ex);
        }
    }

    /**
     * Start roce4j's server in the background and return once it has printed its first line (the examples print it
     * just before they listen, so a client started in the guest after this finds the listener; its retries on a
     * rejection stay as a safety net). Without this a guest client with ten connections could have some rejected
     * and some accepted, when roce4j began to listen in the middle of its burst of REQs.
     *
     * @param peer      the guest (its case budget).
     * @param readyLine the server's first line, e.g. "cmatose: starting server".
     * @param args      the command line after {@code roce}.
     * @return the run.
     */
    static CompletableFuture<RoceRun> startServer(final RxePeer peer, final String readyLine, final String... args)
    {
        final CountDownLatch ready = new CountDownLatch(1);
        final StringWriter out = new StringWriter()
        {
            @Override
            public void flush()
            {
                super.flush();
                if (getBuffer().indexOf(readyLine) >= 0)
                {
                    ready.countDown();
                }
            }
        };
        final CompletableFuture<RoceRun> run = CompletableFuture.supplyAsync(() -> RoceRun.run(out, List.of(args)));
        run.whenComplete((result, ex) -> ready.countDown());
        try
        {
            if (!ready.await(peer.caseTimeLeft().toMillis(), TimeUnit.MILLISECONDS))
            {
                throw new AssertionError("roce " + args[0] + " did not print '" + readyLine + "'; it said:\n" + out);
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted waiting for roce " + args[0], ex);
        }
        return run;
    }
}
