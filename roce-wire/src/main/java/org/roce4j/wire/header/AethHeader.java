package org.roce4j.wire.header;

import org.agrona.MutableDirectBuffer;

/**
 * ACK Extended Transport Header (IBA 9.3.5.1 / 9.7.5.1): the responder's ACK, RNR NAK or NAK, and its MSN.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |R|Typ|  Value  |          Message Sequence Number (24)         |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   \_ Syndrome _/
 * </pre>
 *
 * Syndrome bit 7 is reserved; bits 6..5 are the type ({@link #TYPE_ACK}, {@link #TYPE_RNR_NAK}, reserved,
 * {@link #TYPE_NAK}); bits 4..0 are the credit code of an ACK, the RNR timer code of an RNR NAK, or the NAK code.
 * The three tables the syndrome refers to are kept here as data: {@link #CREDITS}, {@link #RNR_TIMER_NS} and
 * {@link NakCode}.
 */
public final class AethHeader extends HeaderFlyweight
{
    /** Header length. */
    public static final int LENGTH = 4;
    /** Offset of the syndrome. */
    public static final int SYNDROME_OFFSET = 0;
    /** Offset of the 24-bit MSN. */
    public static final int MSN_OFFSET = 1;

    /** Type bits of the syndrome (AETH_TYPE_MASK). */
    public static final int TYPE_MASK = 0x60;
    /** Value bits of the syndrome: credit code, RNR timer code or NAK code. */
    public static final int VALUE_MASK = 0x1F;
    /** Syndrome type: ACK (AETH_ACK). */
    public static final int TYPE_ACK = 0x00;
    /** Syndrome type: RNR NAK (AETH_RNR_NAK). */
    public static final int TYPE_RNR_NAK = 0x20;
    /** Syndrome type: reserved (AETH_RSVD). */
    public static final int TYPE_RESERVED = 0x40;
    /** Syndrome type: NAK (AETH_NAK). */
    public static final int TYPE_NAK = 0x60;

    /**
     * ACK credit code 0x1F: "invalid / unlimited" credits (AETH_ACK_UNLIMITED). rxe puts it on every ACK, so
     * end-to-end credits are not used between rxe peers.
     */
    public static final int CREDIT_CODE_UNLIMITED = 0x1F;
    /** The syndrome of an ACK with unlimited credits: 0x1F. */
    public static final int SYNDROME_ACK_UNLIMITED = TYPE_ACK | CREDIT_CODE_UNLIMITED;

    /**
     * Credits advertised by ACK credit codes 0x00..0x1E (IBA table 45 "Encoding for the credit count"; the same
     * values as rdmavt rc.c credit_table). Code 0x1F is {@link #CREDIT_CODE_UNLIMITED} and has no entry.
     */
    private static final int[] CREDITS =
    {
        0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096,
        6144, 8192, 12288, 16384, 24576, 32768
    };

    /**
     * RNR NAK timer codes 0..31 in nanoseconds (IBA table 46 "Encoding for RNR NAK timer field"; enum ib_rnr_timeout).
     * Code 0 is the longest wait, 655.36 ms. rxe's rnrnak_usec[] has 61410 µs for code 25, a typo of the spec's
     * 61.44 ms; roce4j uses the spec value.
     */
    private static final long[] RNR_TIMER_NS =
    {
        655_360_000L, 10_000L, 20_000L, 30_000L, 40_000L, 60_000L, 80_000L, 120_000L,
        160_000L, 240_000L, 320_000L, 480_000L, 640_000L, 960_000L, 1_280_000L, 1_920_000L,
        2_560_000L, 3_840_000L, 5_120_000L, 7_680_000L, 10_240_000L, 15_360_000L, 20_480_000L, 30_720_000L,
        40_960_000L, 61_440_000L, 81_920_000L, 122_880_000L, 163_840_000L, 245_760_000L, 327_680_000L, 491_520_000L
    };

    /** Number of ACK credit codes with a finite credit count (0x00..0x1E). */
    public static final int CREDIT_CODE_COUNT = CREDITS.length;
    /** Number of RNR timer codes. */
    public static final int RNR_TIMER_CODE_COUNT = RNR_TIMER_NS.length;

    /**
     * NAK codes carried in the value bits of a {@link #TYPE_NAK} syndrome (IBA table 47 "NAK codes").
     */
    public enum NakCode
    {
        /** 0x60: PSN sequence error; the AETH PSN is the next PSN the responder expects (rxe_resp.c check_psn). */
        PSN_SEQUENCE_ERROR(0),
        /** 0x61: invalid request (IBA class C errors: bad opcode sequence, length, access flags). */
        INVALID_REQUEST(1),
        /** 0x62: remote access error (R_Key, bounds or permission violation). */
        REMOTE_ACCESS_ERROR(2),
        /** 0x63: remote operational error (responder could not complete, e.g. bad receive WQE). */
        REMOTE_OPERATIONAL_ERROR(3),
        /** 0x64: invalid RD request; RD only, never sent by rxe or roce4j. */
        INVALID_RD_REQUEST(4);

        private static final NakCode[] BY_CODE = values();

        private final int code;

        NakCode(final int code)
        {
            this.code = code;
        }

        /**
         * @return the 5-bit code.
         */
        public int code()
        {
            return code;
        }

        /**
         * @return the whole syndrome byte: {@link #TYPE_NAK} | code.
         */
        public int syndrome()
        {
            return TYPE_NAK | code;
        }

        /**
         * @param code 5-bit NAK code.
         * @return the NAK code, or null for a reserved value (5..31).
         */
        public static NakCode of(final int code)
        {
            return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
        }
    }

    /** {@inheritDoc} */
    public AethHeader wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    /**
     * @return 4.
     */
    public int length()
    {
        return LENGTH;
    }

    /**
     * @return syndrome byte.
     */
    public int syndrome()
    {
        return u8(SYNDROME_OFFSET);
    }

    /**
     * @param syndrome byte.
     * @return this.
     */
    public AethHeader syndrome(final int syndrome)
    {
        u8(SYNDROME_OFFSET, syndrome);
        return this;
    }

    /**
     * @return message sequence number, 24 bits: count of requests the responder has completed.
     */
    public int msn()
    {
        return u24(MSN_OFFSET);
    }

    /**
     * @param msn message sequence number.
     * @return this.
     */
    public AethHeader msn(final int msn)
    {
        u24(MSN_OFFSET, msn);
        return this;
    }

    /**
     * @param syndrome byte.
     * @return its type bits: one of TYPE_ACK, TYPE_RNR_NAK, TYPE_RESERVED, TYPE_NAK.
     */
    public static int type(final int syndrome)
    {
        return syndrome & TYPE_MASK;
    }

    /**
     * @param syndrome byte.
     * @return its 5 value bits.
     */
    public static int value(final int syndrome)
    {
        return syndrome & VALUE_MASK;
    }

    /**
     * @param creditCode 0..31.
     * @return credits advertised, or -1 for {@link #CREDIT_CODE_UNLIMITED}.
     * @throws IllegalArgumentException when the code is not 0..31.
     */
    public static int credits(final int creditCode)
    {
        if (CREDIT_CODE_UNLIMITED == creditCode)
        {
            return -1;
        }
        if (creditCode < 0 || creditCode >= CREDITS.length)
        {
            throw new IllegalArgumentException("ACK credit code must be 0..31, got " + creditCode);
        }
        return CREDITS[creditCode];
    }

    /**
     * @param timerCode RNR timer code 0..31 (min_rnr_timer in ibv_modify_qp).
     * @return the minimum wait before retrying, in nanoseconds.
     * @throws IllegalArgumentException when the code is not 0..31.
     */
    public static long rnrTimerNs(final int timerCode)
    {
        if (timerCode < 0 || timerCode >= RNR_TIMER_NS.length)
        {
            throw new IllegalArgumentException("RNR timer code must be 0..31, got " + timerCode);
        }
        return RNR_TIMER_NS[timerCode];
    }

    /**
     * Describe a syndrome for humans, e.g. "ACK (credits: unlimited)", "RNR NAK (timer 12: 0.64 ms)",
     * "NAK (PSN sequence error)". Allocates: for tools only.
     *
     * @param syndrome byte.
     * @return the description.
     */
    public static String describe(final int syndrome)
    {
        final int value = value(syndrome);
        switch (type(syndrome))
        {
            case TYPE_ACK:
                return CREDIT_CODE_UNLIMITED == value ?
                    "ACK (credits: unlimited)" : "ACK (credits: " + CREDITS[value] + ")";
            case TYPE_RNR_NAK:
                return "RNR NAK (timer " + value + ": " + (RNR_TIMER_NS[value] / 1000) / 1000.0 + " ms)";
            case TYPE_NAK:
                final NakCode nak = NakCode.of(value);
                return null == nak ? "NAK (reserved code " + value + ")" : "NAK (" + nak + ")";
            default:
                return "reserved syndrome type";
        }
    }
}
