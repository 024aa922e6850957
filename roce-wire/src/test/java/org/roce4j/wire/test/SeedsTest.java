package org.roce4j.wire.test;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The seed plumbing: parsing and printing seeds, the failure message, and the parameter a test receives.
 */
@Seeded
class SeedsTest
{
    private SeededRandom fromBeforeEach;

    @BeforeEach
    void remember(final SeededRandom random)
    {
        fromBeforeEach = random;
    }

    @Test
    void seedsPrintAndParseBack()
    {
        assertEquals("0x00000000000000ff", Seeds.format(255));
        assertEquals("0xffffffffffffffff", Seeds.format(-1));
        assertEquals(-1L, Seeds.parse("0xffffffffffffffff"));
        assertEquals(0x1234_ABCDL, Seeds.parse(" 0X1234abcd "));
        assertEquals(-42L, Seeds.parse("-42"));
        for (final long seed : new long[] {0, 1, -1, Long.MIN_VALUE, Long.MAX_VALUE, 0xDEADBEEFL})
        {
            assertEquals(seed, Seeds.parse(Seeds.format(seed)));
        }
        assertEquals("seed=0x00000000cafebabe (rerun with -Droce4j.seed=0x00000000cafebabe)",
            Seeds.rerunHint(0xCAFEBABEL));
    }

    @Test
    void badSeedTextIsRejectedNamingIt()
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> Seeds.parse("0xzz"));
        assertTrue(ex.getMessage().contains("'0xzz'"), ex.getMessage());
        assertTrue(ex.getMessage().contains("roce4j.seed"), ex.getMessage());
    }

    @Test
    void failuresCarryTheRerunHint()
    {
        final AssertionFailedError original = new AssertionFailedError("values differ", 1, 2);
        final Throwable wrapped = SeedExtension.withSeed(0xABCL, "someTest()", original);
        final AssertionFailedError failed = assertInstanceOf(AssertionFailedError.class, wrapped);
        assertEquals("seed=0x0000000000000abc (rerun with -Droce4j.seed=0x0000000000000abc): values differ",
            failed.getMessage());
        assertEquals(1, failed.getExpected().getValue());
        assertEquals(2, failed.getActual().getValue());
        assertSame(original, failed.getCause());

        final IllegalStateException crash = new IllegalStateException("boom");
        final Throwable crashed = SeedExtension.withSeed(7, "otherTest()", crash);
        assertTrue(crashed.getMessage().startsWith("seed=0x0000000000000007 (rerun with"), crashed.getMessage());
        assertTrue(crashed.getMessage().endsWith(": boom"), crashed.getMessage());
        assertSame(crash, crashed.getCause());

        final TestAbortedException skipped = new TestAbortedException("no tool");
        assertSame(skipped, SeedExtension.withSeed(7, "skipped()", skipped), "a skip stays a skip");
    }

    @Test
    void testsReceiveASeededRandomThatReplays(final SeededRandom random)
    {
        final SeededRandom replay = new SeededRandom(random.seed());
        for (int i = 0; i < 100; i++)
        {
            assertEquals(replay.nextLong(), random.nextLong());
        }
        final String fixed = System.getProperty(Seeds.SEED_PROPERTY);
        if (null != fixed)
        {
            assertEquals(Seeds.parse(fixed), random.seed(), "-Droce4j.seed fixes the seed");
        }
        assertTrue(random.toString().contains(Seeds.format(random.seed())));
    }

    @Test
    void beforeEachAndTheTestShareOneRandom(final SeededRandom random)
    {
        assertSame(fromBeforeEach, random, "@BeforeEach and the test method must share the seed");
    }
}
