package org.roce4j.verbs;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.roce4j.wire.AgronaAccess;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A program started without {@code --add-exports java.base/jdk.internal.misc=ALL-UNNAMED} meets, at its first
 * {@code RdmaDevice.open}, an error that names the flag and the places to put it, never Agrona's raw
 * {@code IllegalAccessError} from deep inside a buffer (issue 16). Run in a child JVM started without the flag.
 */
class AgronaAccessTest
{
    /**
     * The child: open a device the way the README does and print what happened.
     *
     * @param args unused.
     */
    public static void main(final String[] args)
    {
        try (RdmaDevice device = RdmaDevice.open("memory:10.252.0.1"))
        {
            System.out.println("opened " + device.name());
        }
        catch (final Throwable ex)
        {
            System.out.println(ex.getClass().getName() + ": " + ex.getMessage());
            System.out.println("cause: " + ex.getCause());
        }
    }

    @Test
    void withoutTheFlagTheFirstOpenNamesItAndWhereItGoes() throws Exception
    {
        final Process child = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
            .toString(), "-cp", System.getProperty("java.class.path"), AgronaAccessTest.class.getName()))
            .redirectErrorStream(true).start();
        child.getOutputStream().close();
        final String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        // A guard against a hang, not a speed check.
        assertTrue(child.waitFor(60, TimeUnit.SECONDS), output);
        assertEquals(0, child.exitValue(), output);
        final String first = output.lines().findFirst().orElse("");
        assertTrue(first.startsWith("java.lang.IllegalStateException: roce4j needs the JVM option " +
            AgronaAccess.ADD_EXPORTS), output);
        for (final String where : List.of("java command line", "<argLine>", AgronaAccess.MANIFEST_ENTRY))
        {
            assertTrue(first.contains(where), "the message does not mention " + where + ": " + first);
        }
        assertTrue(output.contains("cause: java.lang.IllegalAccessError"), output);
    }

    @Test
    void withTheFlagNothingIsSaid()
    {
        assertDoesNotThrow(AgronaAccess::require);
    }
}
