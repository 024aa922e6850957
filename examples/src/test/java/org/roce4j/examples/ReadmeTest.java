package org.roce4j.examples;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The README's library quick start is QuickStart.java as compiled and run by {@link ExamplesTest}, byte for byte
 * (between its {@code README:start} and {@code README:end} markers); the README's Maven coordinates and the BOM
 * name every published module at the reactor's version.
 */
class ReadmeTest
{
    private static final Path ROOT = Path.of("..");

    @Test
    void theReadmeQuotesTheQuickStartVerbatim() throws IOException
    {
        final String source = Files.readString(Path.of("src/main/java/org/roce4j/examples/QuickStart.java"));
        final Matcher quoted = Pattern.compile("(?s)// README:start\n(.*?)// README:end").matcher(source);
        assertTrue(quoted.find(), "QuickStart.java lost its README markers");
        final String readme = Files.readString(ROOT.resolve("README.md"));
        final Matcher block = Pattern.compile("(?s)<!-- quick-start: examples/src/main/java/org/roce4j/examples/" +
            "QuickStart.java -->\n```java\n(.*?)```").matcher(readme);
        assertTrue(block.find(), "README.md lost its quick start block");
        assertEquals(quoted.group(1), block.group(1), "README.md and QuickStart.java differ: copy the file's text " +
            "between its markers into the README");
    }

    @Test
    void theBomAndTheReadmeNameEveryPublishedModule() throws IOException
    {
        final String parent = Files.readString(ROOT.resolve("pom.xml"));
        final String version = first(parent, "<version>([^<]+)</version>");
        final List<String> published = new ArrayList<>();
        final Matcher modules = Pattern.compile("<module>([^<]+)</module>").matcher(parent);
        while (modules.find())
        {
            final String module = modules.group(1);
            final String pom = Files.readString(ROOT.resolve(module).resolve("pom.xml"));
            // Published: the modules that ship sources and Javadoc jars (the others skip them) and are not the BOM.
            if (!pom.contains("<maven.javadoc.skip>true</maven.javadoc.skip>") && !"roce4j-bom".equals(module))
            {
                published.add(module);
            }
        }
        assertEquals(List.of("roce-wire", "roce-transport", "roce-links", "roce-verbs", "roce-cm", "roce-conform",
            "roce-cli", "roce-testcontainers"), published);
        final String bom = Files.readString(ROOT.resolve("roce4j-bom/pom.xml"));
        assertEquals(version, first(bom, "<artifactId>roce4j-bom</artifactId>\\s*<version>([^<]+)</version>"),
            "the BOM's version is the reactor's");
        final String readme = Files.readString(ROOT.resolve("README.md"));
        assertTrue(readme.contains("<artifactId>roce4j-bom</artifactId>\n      <version>" + version + "</version>"),
            "README.md imports the BOM at " + version);
        for (final String module : published)
        {
            assertTrue(bom.contains("<artifactId>" + module + "</artifactId>\n        <version>${project.version}" +
                "</version>"), "the BOM lacks " + module);
        }
    }

    private static String first(final String text, final String regex)
    {
        final Matcher matcher = Pattern.compile(regex).matcher(text);
        assertTrue(matcher.find(), regex);
        return matcher.group(1);
    }
}
