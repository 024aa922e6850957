package org.roce4j.wire.test;

import java.util.Random;

/**
 * The random source of one randomized test, remembering its seed so that a failure can be replayed. Supplied to
 * test methods by {@link SeedExtension} (use {@link Seeded} on the test class).
 */
public final class SeededRandom
{
    private final long seed;
    private final Random random;

    /**
     * @param seed of the sequence.
     */
    public SeededRandom(final long seed)
    {
        this.seed = seed;
        this.random = new Random(seed);
    }

    /**
     * @return the seed this sequence started from.
     */
    public long seed()
    {
        return seed;
    }

    /**
     * @return the underlying generator, for APIs that take a {@link Random}.
     */
    public Random random()
    {
        return random;
    }

    /**
     * @return a uniformly distributed int.
     */
    public int nextInt()
    {
        return random.nextInt();
    }

    /**
     * @param bound exclusive upper bound, positive.
     * @return a value in 0 .. bound - 1.
     */
    public int nextInt(final int bound)
    {
        return random.nextInt(bound);
    }

    /**
     * @param origin inclusive lower bound.
     * @param bound  exclusive upper bound, greater than origin.
     * @return a value in origin .. bound - 1.
     */
    public int nextInt(final int origin, final int bound)
    {
        return origin + random.nextInt(bound - origin);
    }

    /**
     * @return a uniformly distributed long.
     */
    public long nextLong()
    {
        return random.nextLong();
    }

    /**
     * @return true or false with equal probability.
     */
    public boolean nextBoolean()
    {
        return random.nextBoolean();
    }

    /**
     * @param bytes to fill with random bytes.
     */
    public void nextBytes(final byte[] bytes)
    {
        random.nextBytes(bytes);
    }

    /**
     * @param <T>     element type.
     * @param choices to pick from, not empty.
     * @return one of them, uniformly.
     */
    @SafeVarargs
    public final <T> T pick(final T... choices)
    {
        return choices[random.nextInt(choices.length)];
    }

    /**
     * @return the seed in the form printed on failure.
     */
    public String toString()
    {
        return Seeds.rerunHint(seed);
    }
}
