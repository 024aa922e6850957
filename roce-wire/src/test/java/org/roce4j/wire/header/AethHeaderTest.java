package org.roce4j.wire.header;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.roce4j.wire.header.AethHeader.NakCode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The three tables an AETH syndrome refers to, checked whole against literal copies of protocol-facts.md B.3
 * (IBA credit table = rdmavt credit_table; RNR timers of enum ib_rnr_timeout in IBA values; NAK codes 0x60..0x64).
 */
class AethHeaderTest
{
    /** Credits of codes 0x00..0x1E (protocol-facts.md B.3, rdmavt rc.c credit_table[31]). */
    private static final int[] EXPECTED_CREDITS =
    {
        0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096,
        6144, 8192, 12288, 16384, 24576, 32768
    };

    /**
     * RNR timer codes 0..31 in hundredths of a millisecond (10 µs units), from the ms table of protocol-facts.md B.3.
     * Code 25 is the IBA 61.44 ms, not rxe's 61410 µs typo.
     */
    private static final int[] EXPECTED_RNR_10US =
    {
        65536, 1, 2, 3, 4, 6, 8, 12,
        16, 24, 32, 48, 64, 96, 128, 192,
        256, 384, 512, 768, 1024, 1536, 2048, 3072,
        4096, 6144, 8192, 12288, 16384, 24576, 32768, 49152
    };

    @Test
    void creditTableIsWhole()
    {
        assertEquals(31, AethHeader.CREDIT_CODE_COUNT);
        final int[] actual = new int[31];
        for (int code = 0; code < 31; code++)
        {
            actual[code] = AethHeader.credits(code);
        }
        assertArrayEquals(EXPECTED_CREDITS, actual);
        assertEquals(-1, AethHeader.credits(0x1F), "0x1F means unlimited / invalid credits");
        assertEquals(0x1F, AethHeader.CREDIT_CODE_UNLIMITED);
        assertEquals(0x1F, AethHeader.SYNDROME_ACK_UNLIMITED);
    }

    @Test
    void rnrTimerTableIsWholeInIbaValues()
    {
        assertEquals(32, AethHeader.RNR_TIMER_CODE_COUNT);
        final long[] actual = new long[32];
        final long[] expected = new long[32];
        for (int code = 0; code < 32; code++)
        {
            actual[code] = AethHeader.rnrTimerNs(code);
            expected[code] = EXPECTED_RNR_10US[code] * 10_000L;
        }
        assertArrayEquals(expected, actual);
        assertEquals(61_440_000L, AethHeader.rnrTimerNs(25), "IBA value, not rxe's 61410 us");
        assertEquals(640_000L, AethHeader.rnrTimerNs(12), "ibv_rc_pingpong's min_rnr_timer 12 is 0.64 ms");
    }

    @ParameterizedTest
    @ValueSource(ints = {-1, 32, 0x20, Integer.MIN_VALUE})
    void outOfRangeCodesAreRejectedNamingTheValue(final int code)
    {
        final IllegalArgumentException rnr =
            assertThrows(IllegalArgumentException.class, () -> AethHeader.rnrTimerNs(code));
        assertTrue(rnr.getMessage().contains(String.valueOf(code)), rnr.getMessage());
        final IllegalArgumentException credit =
            assertThrows(IllegalArgumentException.class, () -> AethHeader.credits(code));
        assertTrue(credit.getMessage().contains(String.valueOf(code)), credit.getMessage());
    }

    @Test
    void nakCodesAreWhole()
    {
        final NakCode[] codes = NakCode.values();
        assertEquals(5, codes.length);
        final int[][] expected = {{0x60, 0}, {0x61, 1}, {0x62, 2}, {0x63, 3}, {0x64, 4}};
        final String[] names = {"PSN_SEQUENCE_ERROR", "INVALID_REQUEST", "REMOTE_ACCESS_ERROR",
            "REMOTE_OPERATIONAL_ERROR", "INVALID_RD_REQUEST"};
        for (int i = 0; i < codes.length; i++)
        {
            assertEquals(names[i], codes[i].name());
            assertEquals(expected[i][0], codes[i].syndrome());
            assertEquals(expected[i][1], codes[i].code());
            assertSame(codes[i], NakCode.of(expected[i][1]));
        }
        for (int code = 5; code < 32; code++)
        {
            assertNull(NakCode.of(code), "reserved NAK code " + code);
        }
        assertNull(NakCode.of(-1));
    }

    @Test
    void syndromeTypeAndValue()
    {
        assertEquals(AethHeader.TYPE_ACK, AethHeader.type(0x1F));
        assertEquals(0x1F, AethHeader.value(0x1F));
        assertEquals(AethHeader.TYPE_RNR_NAK, AethHeader.type(0x2C));
        assertEquals(12, AethHeader.value(0x2C));
        assertEquals(AethHeader.TYPE_RESERVED, AethHeader.type(0x40));
        assertEquals(AethHeader.TYPE_NAK, AethHeader.type(0x63));
        assertEquals(3, AethHeader.value(0x63));
        assertEquals(AethHeader.TYPE_NAK, AethHeader.type(0xE0), "bit 7 is reserved, not part of the type");
    }

    @Test
    void describeNamesEverySyndromeKind()
    {
        assertEquals("ACK (credits: unlimited)", AethHeader.describe(0x1F));
        assertEquals("ACK (credits: 0)", AethHeader.describe(0x00));
        assertEquals("ACK (credits: 32768)", AethHeader.describe(0x1E));
        assertEquals("RNR NAK (timer 12: 0.64 ms)", AethHeader.describe(0x2C));
        assertEquals("RNR NAK (timer 0: 655.36 ms)", AethHeader.describe(0x20));
        assertEquals("NAK (PSN_SEQUENCE_ERROR)", AethHeader.describe(0x60));
        assertEquals("NAK (reserved code 5)", AethHeader.describe(0x65));
        assertEquals("reserved syndrome type", AethHeader.describe(0x40));
        for (int syndrome = 0; syndrome < 256; syndrome++)
        {
            assertTrue(!AethHeader.describe(syndrome).isEmpty());
        }
    }
}
