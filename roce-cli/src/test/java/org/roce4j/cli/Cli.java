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
