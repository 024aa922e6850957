package org.roce4j.wire;

import org.agrona.concurrent.UnsafeBuffer;

/**
 * Checks, once, that the JVM lets Agrona use {@code jdk.internal.misc.Unsafe}, and turns the raw
 * {@code IllegalAccessError} a user would otherwise meet deep in the first buffer access into an error that names the
 * missing JVM option and where to put it.
 *
 * <p>Agrona 2.x, whose buffers carry every roce4j frame, reaches {@code jdk.internal.misc.Unsafe}, which
 * {@code java.base} does not export. The JVM must start with {@value #ADD_EXPORTS} (an executable jar can say it in
 * its manifest instead: {@value #MANIFEST_ENTRY}; roce.jar does). The entry points a program calls first (opening a
 * device, attaching a fabric port, opening a link or a capture) call {@link #require()}.
 */
public final class AgronaAccess
{
    /** The JVM option Agrona needs. */
    public static final String ADD_EXPORTS = "--add-exports java.base/jdk.internal.misc=ALL-UNNAMED";
    /** The manifest entry that does the same for {@code java -jar}. */
    public static final String MANIFEST_ENTRY = "Add-Exports: java.base/jdk.internal.misc";
    /** What the error says. */
    static final String MESSAGE = "roce4j needs the JVM option " + ADD_EXPORTS + ": Agrona 2.x, which holds " +
        "roce4j's buffers, uses jdk.internal.misc.Unsafe and java.base does not export it. Add the option where the " +
        "JVM starts: on the java command line (or in JDK_JAVA_OPTIONS), in Maven Surefire's <argLine> for tests " +
        "(Gradle: jvmArgs of the test task), or, for an executable jar run with java -jar, as the manifest entry '" +
        MANIFEST_ENTRY + "'. On the module path use =org.agrona instead of =ALL-UNNAMED.";

    private static volatile boolean verified;

    private AgronaAccess()
    {
    }

    /**
     * Return quietly when Agrona can use {@code jdk.internal.misc.Unsafe} (checked once per JVM).
     *
     * @throws IllegalStateException naming {@value #ADD_EXPORTS} and where to put it, when it cannot.
     */
    public static void require()
    {
        if (!verified)
        {
            check();
        }
    }

    private static void check()
    {
        try
        {
            // The first Unsafe access initialises Agrona's UnsafeApi: IllegalAccessError without the export, then
            // NoClassDefFoundError ("Could not initialize class") on every later attempt.
            new UnsafeBuffer(new byte[Long.BYTES]).getLong(0);
            verified = true;
        }
        catch (final IllegalAccessError | NoClassDefFoundError | ExceptionInInitializerError ex)
        {
            throw new IllegalStateException(MESSAGE, ex);
        }
    }
}
