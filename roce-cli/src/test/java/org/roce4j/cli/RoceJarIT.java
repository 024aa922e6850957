package org.roce4j.cli;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;

import org.junit.jupiter.api.Test;
import org.roce4j.wire.AgronaAccess;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * roce.jar runs with a plain {@code java -jar}, no {@code --add-exports}: its manifest carries
 * {@value AgronaAccess#MANIFEST_ENTRY}, so Agrona may use jdk.internal.misc.Unsafe. Run by failsafe after package.
 */
class RoceJarIT
{
    private static final Path JAR = Path.of("target", "roce.jar");

    @Test
    void theJarRunsWithoutJvmFlags() throws Exception
    {
        assertTrue(Files.isRegularFile(JAR), "package builds " + JAR.toAbsolutePath());
        try (JarFile jar = new JarFile(JAR.toFile()))
        {
            assertEquals("java.base/jdk.internal.misc", jar.getManifest().getMainAttributes().getValue("Add-Exports"));
        }
        final Process demo = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
            .toString(), "-jar", JAR.toString(), "demo")).redirectErrorStream(true).start();
        demo.getOutputStream().close();
        final String output = new String(demo.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        // A guard against a hang, not a speed check.
        assertTrue(demo.waitFor(120, TimeUnit.SECONDS), output);
        assertEquals(0, demo.exitValue(), output);
        assertTrue(output.contains("demo: all operations completed with the right data"), output);
        assertTrue(!output.contains("IllegalAccessError") && !output.contains("SLF4J"), output);
    }
}
