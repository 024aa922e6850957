package org.roce4j.ib;

/**
 * InfiniBand path MTUs (enum ibv_mtu: IBV_MTU_256 = 1 ... IBV_MTU_4096 = 5): the payload size of one packet.
 */
public enum Mtu
{
    /** 256 bytes, enum value 1. */
    MTU_256(1, 256),
    /** 512 bytes, enum value 2. */
    MTU_512(2, 512),
    /** 1024 bytes, enum value 3. */
    MTU_1024(3, 1024),
    /** 2048 bytes, enum value 4. */
    MTU_2048(4, 2048),
    /** 4096 bytes, enum value 5. */
    MTU_4096(5, 4096);

    /**
     * RoCEv2 header allowance rxe subtracts from the netdev MTU before choosing the IB MTU (RXE_MAX_HDR_LENGTH 80
     * in rxe_param.h: IP 40 + UDP 8 + BTH 12 + the largest extension headers + ICRC).
     */
    public static final int ROCE_HEADER_ALLOWANCE = 80;

    private final int verbsValue;
    private final int bytes;

    Mtu(final int verbsValue, final int bytes)
    {
        this.verbsValue = verbsValue;
        this.bytes = bytes;
    }

    /**
     * @return the libibverbs enum value (1..5).
     */
    public int verbsValue()
    {
        return verbsValue;
    }

    /**
     * @return payload bytes per packet.
     */
    public int bytes()
    {
        return bytes;
    }

    /**
     * @param verbsValue 1..5.
     * @return the MTU.
     * @throws IllegalArgumentException naming the value otherwise.
     */
    public static Mtu fromVerbsValue(final int verbsValue)
    {
        for (final Mtu mtu : values())
        {
            if (mtu.verbsValue == verbsValue)
            {
                return mtu;
            }
        }
        throw new IllegalArgumentException("path MTU enum must be 1..5 (256..4096), got " + verbsValue);
    }

    /**
     * @param bytes 256, 512, 1024, 2048 or 4096.
     * @return the MTU.
     * @throws IllegalArgumentException naming the value otherwise.
     */
    public static Mtu fromBytes(final int bytes)
    {
        for (final Mtu mtu : values())
        {
            if (mtu.bytes == bytes)
            {
                return mtu;
            }
        }
        throw new IllegalArgumentException("path MTU must be 256, 512, 1024, 2048 or 4096, got " + bytes);
    }

    /**
     * The active MTU of a port over a link with a given IP MTU, as rxe computes it (rxe_set_mtu /
     * eth_mtu_int_to_enum): the largest IB MTU not above ipMtu - 80, at least 256, at most 4096.
     *
     * @param ipMtu of the link, e.g. 1500 gives 1024 and 9000 gives 4096.
     * @return the active MTU.
     */
    public static Mtu forLinkMtu(final int ipMtu)
    {
        final int room = ipMtu - ROCE_HEADER_ALLOWANCE;
        Mtu best = MTU_256;
        for (final Mtu mtu : values())
        {
            if (mtu.bytes <= room)
            {
                best = mtu;
            }
        }
        return best;
    }
}
