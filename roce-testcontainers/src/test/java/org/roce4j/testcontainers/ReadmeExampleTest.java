package org.roce4j.testcontainers;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The README's example is {@link RxeContainerExampleTest}, which runs: the two must not drift apart.
 */
class ReadmeExampleTest
{
    private static final String START = "// README example start\n";
    private static final String END = "// README example end";

    @Test
    void theReadmeQuotesTheExampleThatRuns() throws IOException
    {
        final String source = Files.readString(Path.of("src/test/java/org/roce4j/testcontainers/" +
            "RxeContainerExampleTest.java"), StandardCharsets.UTF_8);
        final String example = source.substring(source.indexOf(START) + START.length(), source.indexOf(END));
        final String readme = Files.readString(Path.of("..", "README.md"), StandardCharsets.UTF_8);
        assertTrue(readme.contains(example), "README.md must quote RxeContainerExampleTest between its markers:\n" +
            example);
    }
}
