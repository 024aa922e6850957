package org.roce4j.bench;

import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * The command lines of bench's programs (EngineBench, AeronBench, QpCountProbe, the suite): each declares its options
 * as a picocli {@code @Command} class, the times every measurement takes as the {@link Times} mixin and
 * {@code --shared-thread} as the {@link SharedThread} mixin, and parses with
 * {@link #parse}, the one place a bad option is reported (picocli's message and the usage, exit status 2).
 */
public final class BenchArgs
{
    private BenchArgs()
    {
    }

    /**
     * Parse a command line into an options object; on a bad or unknown option print the problem and the usage to
     * stderr and exit with status 2.
     *
     * @param options the {@code @Command} object, its fields holding the defaults.
     * @param args    the command line.
     * @param <T>     its type.
     * @return options, filled.
     */
    public static <T> T parse(final T options, final String[] args)
    {
        final CommandLine commandLine = new CommandLine(options);
        try
        {
            commandLine.parseArgs(args);
        }
        catch (final CommandLine.ParameterException ex)
        {
            System.err.println(ex.getMessage());
            commandLine.usage(System.err);
            System.exit(2);
        }
        return options;
    }

    /**
     * {@code --warmup-ms N --measure-ms N}: how long each measurement warms up and measures.
     */
    public static final class Times
    {
        @Option(names = "--warmup-ms", paramLabel = "N", description = "Warm-up of each measurement, in ms.")
        private long warmupMs;
        @Option(names = "--measure-ms", paramLabel = "N", description = "Measured time of each measurement, in ms.")
        private long measureMs;

        /**
         * @param warmupMs  the default warm-up, in ms.
         * @param measureMs the default measured time, in ms.
         */
        public Times(final long warmupMs, final long measureMs)
        {
            this.warmupMs = warmupMs;
            this.measureMs = measureMs;
        }

        /**
         * @return the warm-up, in ns.
         */
        public long warmupNs()
        {
            return warmupMs * 1_000_000L;
        }

        /**
         * @return the measured time, in ns.
         */
        public long measureNs()
        {
            return measureMs * 1_000_000L;
        }
    }

    /**
     * {@code --shared-thread}: one thread drives both endpoints instead of a thread each.
     */
    public static final class SharedThread
    {
        @Option(names = "--shared-thread", description = "One thread drives both endpoints.")
        private boolean on;

        /**
         * @return true when given.
         */
        public boolean on()
        {
            return on;
        }
    }
}
