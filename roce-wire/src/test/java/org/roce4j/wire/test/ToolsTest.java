package org.roce4j.wire.test;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The tool rule: a missing tool fails the test when ROCE4J_REQUIRE_TOOLS=1 and skips it otherwise, naming the tool.
 */
class ToolsTest
{
    @Test
    void missingToolFailsOrSkipsNamingIt()
    {
        final String tool = "roce4j-no-such-tool";
        if (Tools.toolsRequired())
        {
            final AssertionFailedError ex = assertThrows(AssertionFailedError.class, () -> Tools.require(tool));
            assertTrue(ex.getMessage().contains("ROCE4J_REQUIRE_TOOLS=1 but " + tool), ex.getMessage());
        }
        else
        {
            final TestAbortedException ex = assertThrows(TestAbortedException.class, () -> Tools.require(tool));
            assertTrue(ex.getMessage().contains(tool + " is not installed"), ex.getMessage());
            assertTrue(ex.getMessage().contains("ROCE4J_REQUIRE_TOOLS=1"), ex.getMessage());
        }
        final Class<? extends Throwable> expected =
            Tools.toolsRequired() ? AssertionFailedError.class : TestAbortedException.class;
        final Throwable absolute = assertThrows(expected, () -> Tools.require("/nonexistent/roce4j-tool"));
        assertTrue(absolute.getMessage().contains("/nonexistent/roce4j-tool"), absolute.getMessage());
    }

    @Test
    void presentToolIsFoundAndRuns()
    {
        final java.nio.file.Path sh = Tools.require("sh");
        final Tools.Result result = Tools.run(List.of(sh.toString(), "-c", "echo out; echo err >&2; exit 3"), 60);
        assertEquals(3, result.exitCode());
        assertEquals("out\n", result.stdout());
        assertEquals("err\n", result.stderr());
    }
}
