package org.roce4j.cm.ib;

import java.security.SecureRandom;
import java.util.Random;

/**
 * Where the CM gets its random numbers: local communication IDs, starting PSNs and rdma_cm's source ports. The
 * kernel CM draws comm IDs from a random-based xarray cycle and rdma_cm draws each starting PSN with
 * get_random_u32() &amp; 0xFFFFFF; tests inject fixed values to reproduce golden captures byte for byte.
 */
public interface CmIdSource
{
    /**
     * @return a candidate communication ID; the CM skips 0 and IDs already in use.
     */
    int nextCommId();

    /**
     * @return a starting PSN, 24 bits.
     */
    int nextPsn();

    /**
     * @return an ephemeral source port for an active connection, in Linux's default ip_local_port_range
     *     32768..60999; the caller skips ports in use.
     */
    default int nextPort()
    {
        return 32768 + Math.floorMod(nextCommId(), 60999 - 32768 + 1);
    }

    /**
     * @param random the generator (seeded in tests).
     * @return a source drawing both from it.
     */
    static CmIdSource of(final Random random)
    {
        return new CmIdSource()
        {
            /**
             * @return the generator's next int.
             */
            public int nextCommId()
            {
                return random.nextInt();
            }

            /**
             * @return the generator's next int, 24 bits.
             */
            public int nextPsn()
            {
                return random.nextInt() & 0xFF_FFFF;
            }
        };
    }

    /**
     * @return a source backed by a SecureRandom.
     */
    static CmIdSource secure()
    {
        return of(new SecureRandom());
    }
}
