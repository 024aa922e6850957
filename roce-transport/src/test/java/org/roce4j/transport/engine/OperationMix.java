package org.roce4j.transport.engine;

import java.util.SplittableRandom;

import org.roce4j.ib.WrOpcode;

/**
 * The random mix of work requests a {@link ReliabilityHarness} posts: which operation (a quarter SENDs, a fifth
 * WRITEs and READs each, the rest SENDs and WRITEs with immediate and atomics) and how long.
 */
final class OperationMix
{
    private OperationMix()
    {
    }

    /**
     * @param random the harness's random source.
     * @return the next operation.
     */
    static WrOpcode opcode(final SplittableRandom random)
    {
        final int choice = random.nextInt(100);
        if (choice < 25)
        {
            return WrOpcode.SEND;
        }
        else if (choice < 35)
        {
            return WrOpcode.SEND_WITH_IMM;
        }
        else if (choice < 55)
        {
            return WrOpcode.RDMA_WRITE;
        }
        else if (choice < 65)
        {
            return WrOpcode.RDMA_WRITE_WITH_IMM;
        }
        else if (choice < 85)
        {
            return WrOpcode.RDMA_READ;
        }
        else if (choice < 93)
        {
            return WrOpcode.ATOMIC_FETCH_AND_ADD;
        }
        else
        {
            return WrOpcode.ATOMIC_CMP_AND_SWP;
        }
    }

    /**
     * @param random the harness's random source.
     * @param max    the largest length allowed.
     * @return a message length: 5 % empty, most up to 256 bytes, a tail up to 8 KiB, 64 KiB and {@code max}.
     */
    static int length(final SplittableRandom random, final int max)
    {
        final int bucket = random.nextInt(100);
        if (bucket < 5)
        {
            return 0;
        }
        if (bucket < 70)
        {
            return 1 + random.nextInt(Math.min(max, 256));
        }
        if (bucket < 90)
        {
            return 1 + random.nextInt(Math.min(max, 8192));
        }
        if (bucket < 99)
        {
            return 1 + random.nextInt(Math.min(max, 65536));
        }
        return 1 + random.nextInt(max);
    }
}
