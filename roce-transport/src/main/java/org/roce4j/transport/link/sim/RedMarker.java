package org.roce4j.transport.link.sim;

import org.agrona.MutableDirectBuffer;
import org.roce4j.wire.header.Ecn;
import org.roce4j.wire.header.Ipv4Header;

/**
 * The ECN marking of a {@link SimSwitch}'s output queues: RED on the bytes still queued behind a departing frame, q,
 * with probability 0 up to Kmin, Pmax * (q - Kmin) / (Kmax - Kmin) up to Kmax and 1 above (the DCQCN paper's
 * marking, as HPCC's simulator does it at dequeue, {@code switch-mmu.cc ShouldSendCN}). Only ECN-capable frames
 * (ECT(0), ECT(1)) are marked, by {@link Ecn#markCe}. The random numbers come from a seeded xorshift64* generator, so
 * a run repeats for its seed. Single threaded, allocation-free.
 */
final class RedMarker
{
    private final long kminBytes;
    private final long kmaxBytes;
    private final double pmax;
    private final Ipv4Header ipv4 = new Ipv4Header();
    private long random;

    /**
     * @param kminBytes queue length where marking starts.
     * @param kmaxBytes queue length above which every ECN-capable frame is marked.
     * @param pmax      marking probability at Kmax.
     * @param seed      of the random numbers.
     */
    RedMarker(final long kminBytes, final long kmaxBytes, final double pmax, final long seed)
    {
        this.kminBytes = kminBytes;
        this.kmaxBytes = kmaxBytes;
        this.pmax = pmax;
        // xorshift64* needs a non-zero state; mix the seed so that small seeds differ in every bit.
        this.random = mix(seed);
    }

    /**
     * @param queuedBytes bytes in the queue.
     * @return the RED marking probability at that length.
     */
    double markProbability(final long queuedBytes)
    {
        if (queuedBytes <= kminBytes)
        {
            return 0;
        }
        if (queuedBytes > kmaxBytes)
        {
            return 1;
        }
        return pmax * (queuedBytes - kminBytes) / (double)(kmaxBytes - kminBytes);
    }

    /**
     * Mark a departing frame CE with the RED probability of the bytes behind it, when it is ECN-capable; draws a
     * random number only for such a frame when the probability is between 0 and 1.
     *
     * @param frame     holding the frame.
     * @param ipOffset  of its IP header.
     * @param ipVersion 4 or 6 when the frame holds that whole header, else 0 (never marked).
     * @param behind    bytes queued behind the frame.
     * @return true when the frame is marked now.
     */
    boolean markCe(final MutableDirectBuffer frame, final int ipOffset, final int ipVersion, final long behind)
    {
        if (0 == ipVersion || Ecn.NOT_ECT == Ecn.read(frame, ipOffset, ipVersion) || !draw(behind))
        {
            return false;
        }
        return Ecn.markCe(frame, ipOffset, ipVersion, ipv4);
    }

    long kminBytes()
    {
        return kminBytes;
    }

    long kmaxBytes()
    {
        return kmaxBytes;
    }

    double pmax()
    {
        return pmax;
    }

    private boolean draw(final long behind)
    {
        final double p = markProbability(behind);
        return p >= 1 || nextDouble() < p;
    }

    private double nextDouble()
    {
        // xorshift64* (Vigna): deterministic for the seed, allocation-free.
        random ^= random >>> 12;
        random ^= random << 25;
        random ^= random >>> 27;
        return ((random * 0x2545F4914F6CDD1DL) >>> 11) * 0x1.0p-53;
    }

    private static long mix(final long seed)
    {
        long z = seed + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        z ^= z >>> 31;
        return 0 == z ? 1 : z;
    }
}
