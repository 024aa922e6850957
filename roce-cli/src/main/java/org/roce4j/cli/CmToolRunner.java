package org.roce4j.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.UnknownHostException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.roce4j.cm.rdmacm.RdmaCm;
import org.roce4j.transport.link.Link;
import org.roce4j.transport.link.memory.MemoryFabric;
import org.roce4j.verbs.DeviceOptions;
import org.roce4j.verbs.RdmaDevice;
import picocli.CommandLine.Model.CommandSpec;

/**
 * How the rdma_cm tools ({@code udaddy}, {@code mckey}, {@code ucmatose}, {@code rdma_server} / {@code rdma_client})
 * run ({@link #call}): their options checked (exit 1 with the usage, or 254 and the tool's lines for an address that
 * does not resolve), then one role on the {@code --link} device, or, with {@code --link memory}, both roles in this
 * JVM over the in-memory fabric: the server on its own thread, its lines printed after the client's with a
 * {@code [server]} prefix; the client's status decides unless it is 0.
 */
final class CmToolRunner
{
    /** librdmacm's -1 as an exit status: a link or device that cannot open. */
    static final int EXIT_FAILED = 255;
    /** The examples' exit for bad options (usage, exit(1)). */
    static final int EXIT_USAGE = 1;
    /** getaddrinfo's EAI_NONAME (-2) as an exit status. */
    static final int EXIT_EAI_NONAME = 254;
    /** Longest wait for the in-process server to listen. */
    private static final long LISTEN_WAIT_S = 30;
    /** Longest wait for the in-process server after a client that succeeded. */
    private static final long SERVER_WAIT_S = 60;
    /** Longest wait for the in-process server after a client that failed (the server may wait for it forever). */
    private static final long FAILED_SERVER_WAIT_S = 5;
    /** MTU of the in-memory fabric's ports (an Ethernet link's: active MTU 1024). */
    private static final int MEMORY_MTU = 1500;

    /** One role of a tool on an rdma_cm device. */
    @FunctionalInterface
    interface Role
    {
        /**
         * @param cm          rdma_cm of the device to run on.
         * @param out         the tool's stdout.
         * @param err         the tool's stderr.
         * @param onListening to run once a server listens, or has failed to; clients ignore it.
         * @return the tool's exit status.
         */
        int run(RdmaCm cm, PrintWriter out, PrintWriter err, Runnable onListening);
    }

    private CmToolRunner()
    {
    }

    /**
     * What a command of an rdma_cm tool gives {@link #call}: its options as settings, its usage text, and its roles.
     *
     * @param <S> the tool's settings.
     */
    interface Tool<S>
    {
        /**
         * @param out the tool's stdout.
         * @param err the tool's stderr.
         * @return the settings, or null when the tool has printed why it exits with {@link #EXIT_USAGE}.
         * @throws IllegalArgumentException a bad option: its message, then the usage, exit {@link #EXIT_USAGE}.
         * @throws UnknownHostException an address that does not resolve: {@link #unresolved}, exit
         *                                  {@link #EXIT_EAI_NONAME}.
         */
        S settings(PrintWriter out, PrintWriter err) throws UnknownHostException;

        /**
         * @param out where the tool prints its usage.
         */
        void usage(PrintWriter out);

        /**
         * The tool's lines before "test complete" and "return status -2" when an address does not resolve.
         *
         * @param ex  the failed lookup.
         * @param out the tool's stdout.
         */
        void unresolved(UnknownHostException ex, PrintWriter out);

        /**
         * @param settings the settings.
         * @return the one role that runs on {@code --link}.
         */
        Role role(S settings);

        /**
         * @param settings the settings.
         * @return the role that runs first in process (the server, mckey's receiver); it calls onListening.
         * @throws UnknownHostException when an address of the in-process run does not resolve.
         */
        Role server(S settings) throws UnknownHostException;

        /**
         * @param settings the settings.
         * @return the role that runs in process once the server listens.
         * @throws UnknownHostException when an address of the in-process run does not resolve.
         */
        Role client(S settings) throws UnknownHostException;
    }

    /**
     * A tool's command: check {@code --link} and the options, run {@link #onLink} or {@link #inProcess}, then report
     * the link's decorators.
     *
     * @param tool    the command's name, for error lines ({@code roce TOOL: ...}).
     * @param link    the link option.
     * @param spec    the command's spec (its stdout and stderr).
     * @param command the tool.
     * @param <S>     the tool's settings.
     * @return the tool's exit status.
     */
    static <S> int call(final String tool, final LinkOption link, final CommandSpec spec, final Tool<S> command)
    {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        final S settings;
        try
        {
            link.check();
            settings = command.settings(out, err);
            if (null == settings)
            {
                return EXIT_USAGE;
            }
        }
        catch (final IllegalArgumentException ex)
        {
            err.println("roce " + tool + ": " + ex.getMessage());
            command.usage(out);
            return EXIT_USAGE;
        }
        catch (final UnknownHostException ex)
        {
            // The examples print rdma_getaddrinfo's failure on stdout; main returns its code.
            command.unresolved(ex, out);
            out.println("test complete");
            out.println("return status -2");
            out.flush();
            return EXIT_EAI_NONAME;
        }
        try
        {
            if (!link.isMemory())
            {
                return onLink(tool, link, command.role(settings), out, err);
            }
            return inProcess(tool, link, command.server(settings), command.client(settings), out, err);
        }
        catch (final UnknownHostException ex)
        {
            err.println("roce " + tool + ": " + ex.getMessage());
            return EXIT_FAILED;
        }
        finally
        {
            link.report(err);
        }
    }

    /**
     * The tools' {@code strtol(optarg, NULL, 0)} / {@code strtoul}: decimal, 0x hex or 0 octal.
     *
     * @param option the option, for the error.
     * @param text   its argument.
     * @return the number.
     * @throws IllegalArgumentException {@code "-t x: not a number"}.
     */
    static int strtol(final String option, final String text)
    {
        try
        {
            return Integer.decode(text.trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException(option + " " + text + ": not a number", ex);
        }
    }

    /**
     * One role on the device of {@code --link}.
     *
     * @param tool the command's name, for error lines ({@code roce TOOL: ...}).
     * @param link the link option.
     * @param role what to run.
     * @param out  stdout.
     * @param err  stderr.
     * @return the role's status, or {@link #EXIT_FAILED} when the link or the device cannot open.
     */
    static int onLink(final String tool, final LinkOption link, final Role role, final PrintWriter out,
        final PrintWriter err)
    {
        final Link opened;
        try
        {
            opened = link.open(err);
        }
        catch (final IllegalArgumentException | IOException | IllegalStateException ex)
        {
            err.println("roce " + tool + ": " + ex.getMessage());
            return EXIT_FAILED;
        }
        try (opened;
            RdmaDevice device = RdmaDevice.open(opened, DeviceOptions.dedicated().backoff());
            RdmaCm cm = RdmaCm.open(device))
        {
            return role.run(cm, out, err, () ->
            {
            });
        }
        catch (final IllegalStateException | IllegalArgumentException ex)
        {
            err.println("roce " + tool + ": " + ex.getMessage());
            return EXIT_FAILED;
        }
    }

    /**
     * Both roles in this JVM: the server on {@link InProcessPorts#SERVER}, the client on {@link InProcessPorts#CLIENT}.
     *
     * @param tool   the command's name, for error lines.
     * @param link   the link option (its decorators apply to both ports; the client's is watched).
     * @param server the server role; it must call onListening once it listens (or has failed to).
     * @param client the client role.
     * @param out    stdout.
     * @param err    stderr.
     * @return the client's status unless it is 0, else the server's; {@link #EXIT_FAILED} when something broke.
     */
    static int inProcess(final String tool, final LinkOption link, final Role server, final Role client,
        final PrintWriter out, final PrintWriter err)
    {
        final MemoryFabric fabric = new MemoryFabric();
        final StringWriter serverText = new StringWriter();
        final PrintWriter serverOut = new PrintWriter(serverText, true);
        try (fabric;
            RdmaDevice serverDevice = RdmaDevice.open(link.decorate(fabric.attach(InProcessPorts.SERVER, MEMORY_MTU),
                false, err), DeviceOptions.dedicated().backoff());
            RdmaCm serverCm = RdmaCm.open(serverDevice);
            RdmaDevice clientDevice = RdmaDevice.open(link.decorate(fabric.attach(InProcessPorts.CLIENT, MEMORY_MTU),
                true, err), DeviceOptions.dedicated().backoff());
            RdmaCm clientCm = RdmaCm.open(clientDevice))
        {
            final CountDownLatch listening = new CountDownLatch(1);
            final CompletableFuture<Integer> serverRun = CompletableFuture.supplyAsync(
                () -> server.run(serverCm, serverOut, serverOut, listening::countDown));
            if (!listening.await(LISTEN_WAIT_S, TimeUnit.SECONDS))
            {
                throw new IOException("the in-process server did not start listening");
            }
            final int clientExit = client.run(clientCm, out, err, () ->
            {
            });
            final int serverExit;
            try
            {
                serverExit = serverRun.get(0 != clientExit ? FAILED_SERVER_WAIT_S : SERVER_WAIT_S, TimeUnit.SECONDS);
            }
            catch (final TimeoutException ex)
            {
                if (0 != clientExit)
                {
                    err.println("roce " + tool + ": the in-process server was still waiting when the client ended");
                    return clientExit;
                }
                throw ex;
            }
            for (final String line : serverText.toString().split("\n"))
            {
                if (!line.isEmpty())
                {
                    out.println("[server] " + line);
                }
            }
            out.flush();
            return 0 != clientExit ? clientExit : serverExit;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            err.println("roce " + tool + ": interrupted");
            return EXIT_FAILED;
        }
        catch (final IOException | IllegalStateException | ExecutionException | TimeoutException ex)
        {
            err.println("roce " + tool + ": " + ex.getMessage());
            return EXIT_FAILED;
        }
    }
}
