package org.roce4j.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

import picocli.CommandLine;

/**
 * Runs the roce command in process through picocli, with stdout and stderr captured.
 */
final class Cli
{
    /**
     * What one run produced.
     *
     * @param exitCode the command's exit code.
     * @param out      everything written to stdout.
     * @param err      everything written to stderr.
     */
    record Result(int exitCode, String out, String err)
    {
        List<String> outLines()
        {
            return out.lines().toList();
        }

        String lastOutLine()
        {
            final List<String> lines = outLines();
            return lines.isEmpty() ? "" : lines.get(lines.size() - 1);
        }
    }

    private Cli()
    {
    }

    static Result run(final String... args)
    {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final CommandLine commandLine = RoceCommand.commandLine();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        final int exitCode = commandLine.execute(args);
        return new Result(exitCode, out.toString(), err.toString());
    }

    /**
     * {@code count} consecutive TCP ports that every address of this host could bind a moment ago (SO_REUSEADDR, as
     * the conform listeners bind), below Linux's default ephemeral range (32768-60999), so that no other test's
     * port-0 listener or outgoing connection takes one between this probe and the real bind. A block from
     * {@link #freeTcpPort()} plus its neighbours was not safe: the neighbours are ephemeral ports (one was in use in a
     * CI run).
     *
     * @param count ports in the block.
     * @return the first port of the block.
     */
    static int freeTcpPortBlock(final int count)
    {
        final ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int attempt = 0; attempt < 100; attempt++)
        {
            // 20000-32000: above the usual fixed service ports, below the ephemeral range.
            final int base = random.nextInt(20_000, 32_000 - count);
            if (bindable(base, count))
            {
                return base;
            }
        }
        throw new IllegalStateException("no block of " + count + " free TCP ports in 20000-32000 after 100 tries");
    }

    private static boolean bindable(final int base, final int count)
    {
        final ServerSocket[] sockets = new ServerSocket[count];
        try
        {
            for (int i = 0; i < count; i++)
            {
                sockets[i] = new ServerSocket();
                sockets[i].setReuseAddress(true);
                sockets[i].bind(new InetSocketAddress(base + i), 1);
            }
            return true;
        }
        catch (final IOException ex)
        {
            return false;
        }
        finally
        {
            for (final ServerSocket socket : sockets)
            {
                if (null != socket)
                {
                    try
                    {
                        socket.close();
                    }
                    catch (final IOException ignored)
                    {
                        // closing a probe: nothing to do
                    }
                }
            }
        }
    }

    /**
     * @return a TCP port on loopback nobody listened on a moment ago.
     */
    static int freeTcpPort()
    {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            return socket.getLocalPort();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * @return a UDP port of 127.0.0.1 nobody had bound a moment ago.
     */
    static int freeUdpPort()
    {
        try (DatagramSocket socket = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0)))
        {
            return socket.getLocalPort();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * Copy a classpath resource (possibly inside a jar) to a file.
     */
    static Path copyResource(final String resource, final Path directory)
    {
        final Path target = directory.resolve(Path.of(resource).getFileName().toString());
        try (InputStream in = Cli.class.getResourceAsStream(resource))
        {
            if (null == in)
            {
                throw new IllegalStateException("missing test resource " + resource);
            }
            Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
            return target;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
