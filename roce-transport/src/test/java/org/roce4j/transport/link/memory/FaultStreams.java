package org.roce4j.transport.link.memory;

import java.util.SplittableRandom;
import org.roce4j.transport.link.fault.FaultInjector;

/**
 * An independent re-derivation of the random streams {@link FaultInjector} documents, so tests can predict exactly
 * which frames a seed hits without asking the injector.
 */
final class FaultStreams
{
    /** Kind order of the documented stream derivation. */
    static final int LOSS = 0;
    static final int DUPLICATION = 1;
    static final int CORRUPTION = 2;
    static final int REORDERING = 3;
    static final int DELAY = 4;

    private FaultStreams()
    {
    }

    /**
     * @param seed of the injector.
     * @param kind one of the kind constants.
     * @return a copy of the kind's decision stream from its start.
     */
    static SplittableRandom decision(final long seed, final int kind)
    {
        return stream(seed, 2 * kind);
    }

    /**
     * @param seed of the injector.
     * @param kind one of the kind constants.
     * @return a copy of the kind's detail stream from its start.
     */
    static SplittableRandom detail(final long seed, final int kind)
    {
        return stream(seed, 2 * kind + 1);
    }

    /**
     * @param seed   of the injector.
     * @param kind   one of the kind constants.
     * @param rate   of the kind.
     * @param frames sent.
     * @return for each frame, whether the kind hits it.
     */
    static boolean[] hits(final long seed, final int kind, final double rate, final int frames)
    {
        final SplittableRandom random = decision(seed, kind);
        final boolean[] hits = new boolean[frames];
        for (int i = 0; i < frames; i++)
        {
            hits[i] = random.nextDouble() < rate;
        }
        return hits;
    }

    /**
     * @param hits per frame.
     * @return how many are true.
     */
    static int count(final boolean[] hits)
    {
        int count = 0;
        for (final boolean hit : hits)
        {
            count += hit ? 1 : 0;
        }
        return count;
    }

    private static SplittableRandom stream(final long seed, final int index)
    {
        final SplittableRandom master = new SplittableRandom(seed);
        for (int i = 0; i < index; i++)
        {
            master.split();
        }
        return master.split();
    }
}
