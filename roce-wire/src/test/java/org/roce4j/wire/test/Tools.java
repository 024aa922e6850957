package org.roce4j.wire.test;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * The rule for tests that need an external tool (tshark, editcap, {@code /usr/bin/python3} with scapy, qemu): when
 * the environment variable {@value #REQUIRE_TOOLS_ENV} is {@code 1} (CI sets it) a missing tool FAILS the test;
 * otherwise the test is skipped through JUnit assumptions with a reason naming the tool.
 */
public final class Tools
{
    /** Environment variable that turns a missing tool from a skip into a failure. */
    public static final String REQUIRE_TOOLS_ENV = "ROCE4J_REQUIRE_TOOLS";
    /** The Debian system interpreter, where Debian's python3-scapy is importable (not the pyenv one on PATH). */
    public static final String SYSTEM_PYTHON = "/usr/bin/python3";

    private Tools()
    {
    }

    /**
     * @return true when {@value #REQUIRE_TOOLS_ENV}=1.
     */
    public static boolean toolsRequired()
    {
        return "1".equals(System.getenv(REQUIRE_TOOLS_ENV));
    }

    /**
     * Find an executable, or fail/skip the test.
     *
     * @param tool a name looked up on PATH (e.g. {@code tshark}) or an absolute path.
     * @return the executable's path.
     */
    public static Path require(final String tool)
    {
        final Path found = find(tool);
        if (null == found)
        {
            missing(tool + " is not installed (looked " + (tool.contains("/") ? "at " + tool : "on PATH") + ")");
        }
        return found;
    }

    /**
     * Require {@link #SYSTEM_PYTHON} able to import a module, or fail/skip the test.
     *
     * @param module e.g. {@code scapy.contrib.roce}.
     * @return the interpreter's path.
     */
    public static Path requirePythonModule(final String module)
    {
        final Path python = require(SYSTEM_PYTHON);
        final Result result = run(List.of(python.toString(), "-c", "import " + module), 60);
        if (0 != result.exitCode())
        {
            missing(SYSTEM_PYTHON + " cannot import " + module + " (Debian package python3-scapy?): " +
                result.stderr().strip());
        }
        return python;
    }

    /**
     * Run a command to completion, capturing its output. A command still running after the time limit is killed
     * and fails the test (a hang guard, not a speed check).
     *
     * @param command     program and arguments.
     * @param timeoutSecs time limit.
     * @return exit code, standard output and standard error.
     */
    public static Result run(final List<String> command, final long timeoutSecs)
    {
        final Process process;
        try
        {
            process = new ProcessBuilder(new ArrayList<>(command)).start();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot start " + command, ex);
        }
        final CompletableFuture<String> stdout = CompletableFuture.supplyAsync(() -> drain(process.getInputStream()));
        final CompletableFuture<String> stderr = CompletableFuture.supplyAsync(() -> drain(process.getErrorStream()));
        try
        {
            process.getOutputStream().close();
            if (!process.waitFor(timeoutSecs, TimeUnit.SECONDS))
            {
                process.destroyForcibly();
                Assertions.fail(command + " did not finish within " + timeoutSecs + " s");
            }
            return new Result(process.exitValue(), stdout.get(), stderr.get());
        }
        catch (final InterruptedException ex)
        {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + command, ex);
        }
        catch (final IOException | ExecutionException ex)
        {
            throw new IllegalStateException("cannot read the output of " + command, ex);
        }
    }

    private static String drain(final InputStream in)
    {
        try (InputStream stream = in)
        {
            return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    private static Path find(final String tool)
    {
        if (tool.contains("/"))
        {
            final Path path = Path.of(tool);
            return Files.isExecutable(path) ? path : null;
        }
        final String pathVariable = System.getenv("PATH");
        if (null == pathVariable)
        {
            return null;
        }
        for (final String directory : pathVariable.split(File.pathSeparator))
        {
            if (!directory.isEmpty())
            {
                final Path candidate = Path.of(directory, tool);
                if (Files.isRegularFile(candidate) && Files.isExecutable(candidate))
                {
                    return candidate;
                }
            }
        }
        return null;
    }

    private static void missing(final String reason)
    {
        if (toolsRequired())
        {
            Assertions.fail(REQUIRE_TOOLS_ENV + "=1 but " + reason);
        }
        Assumptions.abort("skipped: " + reason + " (set " + REQUIRE_TOOLS_ENV + "=1 to make this a failure)");
    }

    /**
     * What a finished command produced.
     *
     * @param exitCode process exit code.
     * @param stdout   standard output as UTF-8.
     * @param stderr   standard error as UTF-8.
     */
    public record Result(int exitCode, String stdout, String stderr)
    {
    }
}
