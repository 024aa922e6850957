package org.roce4j.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

import picocli.CommandLine.IVersionProvider;

/**
 * {@code roce --version}: the project version (from a resource Maven filters at build time) and the JVM running it.
 */
public final class VersionProvider implements IVersionProvider
{
    /** Classpath resource holding {@code version=...}. */
    static final String RESOURCE = "version.properties";

    /**
     * @return the version lines.
     * @throws IOException when the resource cannot be read.
     */
    public String[] getVersion() throws IOException
    {
        return new String[]{"roce (roce4j) " + version(), "Java " + Runtime.version() + " (" +
            System.getProperty("java.vendor") + ")"};
    }

    /**
     * @return the project version, or "unknown" when the resource is missing (running from unfiltered sources).
     * @throws IOException when the resource exists but cannot be read.
     */
    public static String version() throws IOException
    {
        try (InputStream in = VersionProvider.class.getResourceAsStream(RESOURCE))
        {
            if (null == in)
            {
                return "unknown";
            }
            final Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty("version", "unknown");
        }
    }
}
