package org.roce4j.cli;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.List;

/**
 * A {@code roce perf} run again and again in this JVM, as a DUT's shell loop runs its tool ({@code while :; do
 * ib_write_bw ...; done}), until closed: a server loop (the DUT as responder) or a client loop (the DUT as requester).
 */
final class PerfLoop implements AutoCloseable
{
    private final String[] args;
    private final List<String> errors;
    private final Thread thread;
    private final String pokeHost;
    private final int port;
    private volatile boolean closing;

    /**
     * @param errors   collects what each run that exited non-zero said.
     * @param pokeHost a server loop's address, to release a server still waiting for its client when the loop closes;
     *                 null for a client loop (its run ends once the conform run's listener is gone).
     * @param args     the CLI's arguments, {@code perf TEST ...} with {@code -p PORT}.
     */
    PerfLoop(final List<String> errors, final String pokeHost, final String... args)
    {
        this.args = args.clone();
        this.errors = errors;
        this.pokeHost = pokeHost;
        this.port = Integer.parseInt(args[List.of(args).indexOf("-p") + 1]);
        thread = new Thread(this::loop, "perf-loop-" + args[1]);
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * @return the port its runs listen on or connect to.
     */
    int port()
    {
        return port;
    }

    private void loop()
    {
        while (!closing)
        {
            final Cli.Result run = Cli.run(args);
            // A run ended by the conform peer (a completion with an error, a dropped exchange) exits 1: the loop goes
            // on, as a shell loop does; what it said is kept for a failure's message.
            if (0 != run.exitCode() && !closing)
            {
                errors.add(args[1] + " exited " + run.exitCode() + ": " + run.err().strip());
            }
        }
    }

    /**
     * Stop after the current run: a server still waiting for its client is released by a connection that closes at
     * once; a client gives up once nothing listens (its --timeout).
     */
    @Override
    public void close()
    {
        closing = true;
        while (thread.isAlive() && !Thread.currentThread().isInterrupted())
        {
            if (null != pokeHost)
            {
                try (Socket poke = new Socket())
                {
                    poke.connect(new InetSocketAddress(pokeHost, port), 1_000);
                }
                catch (final IOException ignored)
                {
                    // Not listening at this moment: between two runs, or already gone.
                }
            }
            try
            {
                thread.join(1_000);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }
    }
}
