package org.roce4j.interop;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import org.roce4j.testcontainers.Host;
import org.roce4j.testcontainers.RxeContainer;
import org.testcontainers.DockerClientFactory;

/**
 * Finds what an rxe peer needs on this machine: the repository's docker/ scripts, QEMU, a Docker engine, free ports.
 */
public final class PeerTools
{
    /** Environment variable CI sets: a missing tool fails the tests instead of skipping them. */
    public static final String REQUIRE_TOOLS_ENV = "ROCE4J_REQUIRE_TOOLS";
    /** System property or environment variable forcing a backend: {@code qemu} or {@code container}. */
    public static final String BACKEND_PROPERTY = "roce4j.rxe.backend";
    /** System property naming the repository root when it cannot be found from the working directory. */
    public static final String REPO_ROOT_PROPERTY = "roce4j.repo.root";
    /** The QEMU binary run-vm.sh runs. */
    public static final String QEMU_BINARY = "qemu-system-x86_64";
    /** A file that marks the repository root. */
    private static final String RUN_VM = "docker/rxe-vm/run-vm.sh";
    /** How long a cold image build may take: downloads about 60 MB of Debian packages. */
    private static final long BUILD_TIMEOUT_MIN = 15;

    private static volatile long lastBuildMs = -1;

    /** Which kind of peer runs a class. */
    public enum Backend
    {
        /** Whatever {@link #detectBackend()} picks (in {@link RxePeerTest#backend()}). */
        AUTO,
        /** docker/rxe-vm under qemu-system-x86_64 (TCG) on this machine. */
        QEMU,
        /** The same guest in the roce4j/rxe-qemu container, through Testcontainers ({@link ContainerRxePeer}). */
        CONTAINER,
        /** Neither. */
        NONE
    }

    private PeerTools()
    {
    }

    /**
     * @return true when CI asked for every tool to be present.
     */
    public static boolean toolsRequired()
    {
        return "1".equals(System.getenv(REQUIRE_TOOLS_ENV));
    }

    /**
     * @return the backend to use: the forced one, else QEMU when its binary is on the PATH, else a container when a
     *     Docker engine answers, else NONE.
     */
    public static Backend detectBackend()
    {
        String forced = System.getProperty(BACKEND_PROPERTY);
        if (null == forced)
        {
            forced = System.getenv("ROCE4J_RXE_BACKEND");
        }
        if (null != forced)
        {
            switch (forced.toLowerCase(Locale.ROOT))
            {
                case "qemu":
                    return Backend.QEMU;
                case "container":
                case "docker":
                    return Backend.CONTAINER;
                default:
                    throw new IllegalArgumentException(BACKEND_PROPERTY + "=" + forced + ": use qemu or container");
            }
        }
        if (null != findOnPath(QEMU_BINARY))
        {
            return Backend.QEMU;
        }
        if (ContainerRxePeer.dockerAvailable())
        {
            return Backend.CONTAINER;
        }
        return Backend.NONE;
    }

    /**
     * @param program a program name.
     * @return its path on the PATH, or null.
     */
    public static Path findOnPath(final String program)
    {
        final String path = System.getenv("PATH");
        if (null == path)
        {
            return null;
        }
        for (final String dir : path.split(File.pathSeparator))
        {
            final Path candidate = Path.of(dir.isEmpty() ? "." : dir, program);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate))
            {
                return candidate;
            }
        }
        return null;
    }

    /**
     * The repository root: the {@value #REPO_ROOT_PROPERTY} property, else the nearest directory at or above the
     * working directory that holds docker/rxe-vm/run-vm.sh (Maven runs tests in interop-tests/, IDEs often in the
     * root).
     *
     * @return the root.
     * @throws IllegalStateException when no such directory exists.
     */
    public static Path repoRoot()
    {
        final String configured = System.getProperty(REPO_ROOT_PROPERTY);
        if (null != configured)
        {
            final Path root = Path.of(configured).toAbsolutePath();
            if (!Files.isRegularFile(root.resolve(RUN_VM)))
            {
                throw new IllegalStateException(REPO_ROOT_PROPERTY + "=" + configured + " has no " + RUN_VM);
            }
            return root;
        }
        final Path start = Path.of("").toAbsolutePath();
        for (Path dir = start; null != dir; dir = dir.getParent())
        {
            if (Files.isRegularFile(dir.resolve(RUN_VM)))
            {
                return dir;
            }
        }
        throw new IllegalStateException("no " + RUN_VM + " in " + start + " or above; set -D" + REPO_ROOT_PROPERTY);
    }

    /**
     * @return interop-tests/target under the repository root, where logs and pcaps go.
     */
    public static Path targetDir()
    {
        return repoRoot().resolve("interop-tests").resolve("target");
    }

    /**
     * Build the QEMU image of a Debian release with docker/rxe-vm/build-image.sh (fast when cached) and remember how
     * long it took.
     *
     * @param suite bookworm or trixie.
     * @throws IOException when the build fails; the message has the end of its log.
     */
    public static synchronized void buildImage(final String suite) throws IOException
    {
        final Path root = repoRoot();
        final Path log = targetDir().resolve("rxe-vm").resolve("build-image.log");
        Files.createDirectories(log.getParent());
        final long startNs = System.nanoTime();
        final Process process = new ProcessBuilder("bash", root.resolve("docker/rxe-vm/build-image.sh").toString(),
            "--suite", suite)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
        try
        {
            if (!process.waitFor(BUILD_TIMEOUT_MIN, TimeUnit.MINUTES))
            {
                process.destroyForcibly();
                throw new IOException("build-image.sh did not finish within " + BUILD_TIMEOUT_MIN + " min; see " + log);
            }
        }
        catch (final InterruptedException ex)
        {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while building the rxe image", ex);
        }
        lastBuildMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
        if (0 != process.exitValue())
        {
            throw new IOException("build-image.sh failed with exit code " + process.exitValue() + "; end of " + log +
                ":\n" + Host.tail(log, 40));
        }
    }

    /**
     * @return why the container backend cannot run here (no Docker engine, no roce4j/rxe-qemu image), or null.
     */
    public static String containerUnavailableReason()
    {
        if (!ContainerRxePeer.dockerAvailable())
        {
            return "needs a Docker engine for the container peer (apt-get install docker.io; dockerd " +
                "--bridge=none --iptables=false)";
        }
        final String image = System.getProperty("roce4j.rxe.image", RxeContainer.DEFAULT_IMAGE);
        try
        {
            DockerClientFactory.instance().client().inspectImageCmd(image).exec();
            return null;
        }
        catch (final RuntimeException ex)
        {
            return "needs the image " + image + " (docker/build-images.sh builds it from Debian packages)";
        }
    }

    /**
     * @return milliseconds the last {@link #buildImage(String)} took, or -1.
     */
    public static long lastBuildMs()
    {
        return lastBuildMs;
    }
}
