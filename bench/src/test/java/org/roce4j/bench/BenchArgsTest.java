package org.roce4j.bench;

import org.junit.jupiter.api.Test;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BenchArgsTest
{
    @Command(name = "probe")
    static final class Args
    {
        @Mixin
        final BenchArgs.Times times = new BenchArgs.Times(500, 2000);
        @Option(names = "--qps")
        int qps = 4096;
        @Option(names = "--shared-thread")
        boolean shared;
    }

    @Test
    void defaultsComeFromTheOptionsObject()
    {
        final Args a = BenchArgs.parse(new Args(), new String[0]);
        assertEquals(500_000_000L, a.times.warmupNs());
        assertEquals(2_000_000_000L, a.times.measureNs());
        assertEquals(4096, a.qps);
        assertFalse(a.shared);
    }

    @Test
    void spaceSeparatedValuesAsTheHandParsersTookThem()
    {
        final Args a = BenchArgs.parse(new Args(),
            new String[] {"--measure-ms", "30", "--warmup-ms", "7", "--qps", "16", "--shared-thread"});
        assertEquals(7_000_000L, a.times.warmupNs());
        assertEquals(30_000_000L, a.times.measureNs());
        assertEquals(16, a.qps);
        assertTrue(a.shared);
    }
}
