package org.roce4j.transport.cc;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each DCQCN rule of {@link DcqcnReactionPoint} against a trace computed by hand (the arithmetic is in the comments;
 * rates in bit/s, alpha in 1/1024, times in µs after the first CNP at t = 0). Unless a test says otherwise: line rate
 * 10 Gb/s, rate_to_set_on_first_cnp 4000 Mb/s (so the target rate can grow), ConnectX-5's defaults otherwise (g =
 * 1019, alpha period 1 µs, decrease period 4 µs, rpg_gd 11, rpg_min_dec_fac 50, rpg_threshold 1, rpg_ai_rate 5 Mb/s,
 * rpg_hai_rate 50 Mb/s).
 *
 * <p>Alpha is kept in 1/2^20 (A = 1024 * a) and shown in 1/1024 (a = floor(A / 1024)); without CNPs, from
 * A = 1023 * 1024 = 1047552, one update per µs: A' = floor(1019 * A / 1024): 1042437 (a 1018), 1037346 (1013),
 * 1032280 (1008), 1027239 (1003). A CNP adds 5 * 1024 = 5120 to the update. So the first decrease (at 4 µs, after
 * that µs's alpha update) uses alpha 1003:
 * Rc = 4e9 - floor(4e9 * 1003 / 2048) = 4e9 - 1958984375 = 2041015625 (above the 50 % floor, 2e9).
 */
class DcqcnReactionPointTest
{
    private static final long US = 1_000;
    private static final String BASE = "dcqcn,line_rate=10000,rate_to_set_on_first_cnp=4000";

    private static DcqcnReactionPoint rp(final String extra)
    {
        return new DcqcnReactionPoint(CongestionControl.parse(BASE + extra));
    }

    @Test
    void noLimiterBeforeTheFirstCnp()
    {
        final DcqcnReactionPoint rp = rp("");
        rp.advance(1_000_000 * US);
        assertFalse(rp.limited());
        assertEquals(10_000_000_000L, rp.currentRateBps(), "unlimited: the line rate");
        assertEquals(0, rp.alpha());
    }

    @Test
    void firstCnpSetsTheFirstRateAndInitialAlpha()
    {
        // rate_to_set_on_first_cnp = 0 means the line rate: Rc = Rt = 10e9, alpha = initial_alpha_value = 1023.
        final DcqcnReactionPoint line = new DcqcnReactionPoint(CongestionControl.parse("dcqcn,line_rate=10000"));
        line.onCnp(0);
        assertTrue(line.limited());
        assertEquals(10_000_000_000L, line.currentRateBps());
        assertEquals(10_000_000_000L, line.targetRateBps());
        assertEquals(1023, line.alpha());

        final DcqcnReactionPoint four = rp(",initial_alpha_value=512");
        four.onCnp(0);
        assertEquals(4_000_000_000L, four.currentRateBps());
        assertEquals(4_000_000_000L, four.targetRateBps());
        assertEquals(512, four.alpha());
    }

    @Test
    void alphaUpdatesEveryDceTcpRttWithAndWithoutCnps()
    {
        final DcqcnReactionPoint rp = rp("");
        rp.onCnp(0);
        rp.advance(US);
        assertEquals(1018, rp.alpha(), "A = floor(1019 * 1047552 / 1024) = 1042437");
        rp.advance(2 * US);
        assertEquals(1013, rp.alpha(), "A = floor(1019 * 1042437 / 1024) = 1037346");
        // A CNP in (2, 3]: the update at 3 µs adds (1024 - 1019) * 1024: floor(1019 * 1037346 / 1024) + 5120 =
        // 1032280 + 5120 = 1037400 (a 1013).
        rp.onCnp(2 * US + 500);
        rp.advance(3 * US);
        assertEquals(1013, rp.alpha());
        // No CNP in (3, 4]: floor(1019 * 1037400 / 1024) = 1032334 (a 1008).
        rp.advance(4 * US);
        assertEquals(1008, rp.alpha());
    }

    @Test
    void alphaDecaysToZeroAndACnpRaisesItByOneMinusG()
    {
        // From A = 1047552, repeated A' = floor(1019 * A / 1024) (a Python loop over the 10 000 updates): A falls below
        // 2048 (a = 1) at the 1265th update and below 1024 (a = 0) at the 1397th; it reaches 0 itself at the 1862nd
        // (below 205 each update takes exactly 1). At 10 fractional bits alpha would have stalled at 0 after 466.
        final DcqcnReactionPoint rp = rp(",rpg_time_reset=131071");
        rp.onCnp(0);
        rp.advance(1396 * US);
        assertEquals(1, rp.alpha());
        rp.advance(1397 * US);
        assertEquals(0, rp.alpha());
        rp.advance(10_000 * US);
        assertEquals(0, rp.alpha(), "stays 0 without CNPs");
        // A CNP in (10000, 10001]: A = floor(1019 * 0 / 1024) + 5120 = 5120, alpha 5.
        rp.onCnp(10_000 * US + 1);
        rp.advance(10_001 * US);
        assertEquals(5, rp.alpha());
    }

    @Test
    void alphaHoldsTheShareOfUpdatesWithACnp()
    {
        // One CNP every 12 µs: the EWMA's fixed point is 1024 / 12 = 85.3 (alpha = (1 - g') alpha + g' x, x the share
        // of updates with a CNP). At 10 fractional bits each update would take at least 1 and the CNP's 5 could not
        // hold it: alpha would be 0 most of the time. Over the last CNP period alpha goes from its peak (after the CNP
        // update) down 11 updates: between 1024 / 12 * (1 -/+ 11 * 5 / 1024 / 2) roughly, 83..88.
        final DcqcnReactionPoint rp = rp(",rpg_time_reset=131071");
        rp.onCnp(0);
        for (long t = 12; t <= 6000; t += 12)
        {
            rp.onCnp(t * US - 500);
            rp.advance(t * US);
        }
        assertTrue(rp.alpha() >= 80 && rp.alpha() <= 90, "alpha " + rp.alpha());
    }

    @Test
    void theNextTimerIncreaseIsRpgTimeResetAfterTheLastDecrease()
    {
        // The pacer wakes then to take the raised rate. No limiter: never; a CNP at 0, the decrease at 4 µs restarts
        // the timer: 4 + 300 µs; that increase moves it on by 300 µs.
        final DcqcnReactionPoint rp = rp("");
        assertEquals(Long.MAX_VALUE, rp.nextTimerIncreaseNs());
        rp.onCnp(0);
        rp.advance(4 * US);
        assertEquals(304 * US, rp.nextTimerIncreaseNs());
        rp.advance(304 * US);
        assertEquals(604 * US, rp.nextTimerIncreaseNs());
    }

    @Test
    void rateDecreasesAtTheNextMonitorPeriodByAlphaOverTwoToTheGd()
    {
        final DcqcnReactionPoint rp = rp("");
        rp.onCnp(0);
        rp.advance(4 * US - 1);
        assertEquals(4_000_000_000L, rp.currentRateBps(), "no decrease before the monitor period ends");
        rp.advance(4 * US);
        // alpha 1003 at 4 µs: Rc = 4e9 - floor(4e9 * 1003 / 2^11) = 4e9 - 1958984375 = 2041015625.
        assertEquals(2_041_015_625L, rp.currentRateBps());
        // clamp_tgt_rate 0, clamp_tgt_rate_after_time_inc 1 but no timer increase yet: Rt stays.
        assertEquals(4_000_000_000L, rp.targetRateBps());
        assertEquals(1, rp.decreases());
        // Without another CNP the next checks (8, 12, ... µs) do nothing.
        rp.advance(200 * US);
        assertEquals(2_041_015_625L, rp.currentRateBps());
        assertEquals(1, rp.decreases());
    }

    @Test
    void aDecreaseKeepsAtLeastMinDecFacPercent()
    {
        // rpg_gd 10: Rc = 4e9 - floor(4e9 * 1003 / 2^10) = 82031250, below 50 % of 4e9: Rc = 2e9.
        final DcqcnReactionPoint half = rp(",rpg_gd=10");
        half.onCnp(0);
        half.advance(4 * US);
        assertEquals(2_000_000_000L, half.currentRateBps());
        // rpg_min_dec_fac 90: the cut to 2041015625 is bounded at 90 % of 4e9 = 3.6e9.
        final DcqcnReactionPoint ninety = rp(",rpg_min_dec_fac=90");
        ninety.onCnp(0);
        ninety.advance(4 * US);
        assertEquals(3_600_000_000L, ninety.currentRateBps());
        // rpg_min_dec_fac 100 prevents reductions (NVIDIA).
        final DcqcnReactionPoint none = rp(",rpg_min_dec_fac=100");
        none.onCnp(0);
        none.advance(4 * US);
        assertEquals(4_000_000_000L, none.currentRateBps());
    }

    @Test
    void aDecreaseStopsAtTheMinimumRate()
    {
        // rpg_min_rate 3000 Mb/s: the cut to 2041015625 stops at 3e9.
        final DcqcnReactionPoint rp = rp(",rpg_min_rate=3000");
        rp.onCnp(0);
        rp.advance(4 * US);
        assertEquals(3_000_000_000L, rp.currentRateBps());
    }

    @Test
    void timerDrivesFastRecoveryThenAdditiveThenHyperIncrease()
    {
        // No byte counter: only T counts; F = rpg_threshold = 1. Decrease at 4 µs (Rc 2041015625, Rt 4e9), timer
        // every rpg_time_reset = 300 µs from there.
        final DcqcnReactionPoint rp = rp(",rpg_byte_reset=0");
        rp.onCnp(0);
        rp.advance(304 * US - 1);
        assertEquals(2_041_015_625L, rp.currentRateBps());
        // 304 µs, T = 0 < F: fast recovery, Rc = ceil((4e9 + 2041015625) / 2) = 3020507813, Rt unchanged.
        rp.advance(304 * US);
        assertEquals(3_020_507_813L, rp.currentRateBps());
        assertEquals(4_000_000_000L, rp.targetRateBps());
        assertEquals(1, rp.timeStage());
        // 604 µs, T = 1 = F: additive, Rt = 4e9 + 5e6 = 4005000000, Rc = ceil((4005000000 + 3020507813) / 2) =
        // 3512753907.
        rp.advance(604 * US);
        assertEquals(4_005_000_000L, rp.targetRateBps());
        assertEquals(3_512_753_907L, rp.currentRateBps());
        // 904 µs, T = 2 > F: hyper, Rt = 4005000000 + 50e6 = 4055000000, Rc = ceil((4055000000 + 3512753907) / 2)
        // = 3783876954.
        rp.advance(904 * US);
        assertEquals(4_055_000_000L, rp.targetRateBps());
        assertEquals(3_783_876_954L, rp.currentRateBps());
        // 1204 µs, hyper again: Rt = 4105000000, Rc = ceil((4105000000 + 3783876954) / 2) = ceil(3944438477) =
        // 3944438477 (the sum is odd: 7888876954 + 1 = 7888876955, / 2 = 3944438477).
        rp.advance(1204 * US);
        assertEquals(4_105_000_000L, rp.targetRateBps());
        assertEquals(3_944_438_477L, rp.currentRateBps());
        assertEquals(4, rp.timeStage());
    }

    @Test
    void fastRecoveryLastsRpgThresholdEvents()
    {
        // F = 3: events at T = 0, 1, 2 halve the distance to Rt = 4e9: 2041015625 -> 3020507813 -> 3510253907 ->
        // 3755126954; at T = 3 = F additive: Rt = 4005000000, Rc = ceil((4005000000 + 3755126954) / 2) = 3880063477.
        final DcqcnReactionPoint rp = rp(",rpg_byte_reset=0,rpg_threshold=3");
        rp.onCnp(0);
        rp.advance(304 * US);
        assertEquals(3_020_507_813L, rp.currentRateBps());
        rp.advance(604 * US);
        assertEquals(3_510_253_907L, rp.currentRateBps());
        rp.advance(904 * US);
        assertEquals(3_755_126_954L, rp.currentRateBps());
        assertEquals(4_000_000_000L, rp.targetRateBps(), "fast recovery leaves the target alone");
        rp.advance(1204 * US);
        assertEquals(4_005_000_000L, rp.targetRateBps());
        assertEquals(3_880_063_477L, rp.currentRateBps());
    }

    @Test
    void byteCounterStagesAndHyperIncreaseNeedsBothCountersPastTheThreshold()
    {
        // rpg_byte_reset 1000 bytes, rpg_time_reset 100 µs, F = 1. Decrease at 4 µs: Rc 2041015625, Rt 4e9.
        final DcqcnReactionPoint rp = rp(",rpg_byte_reset=1000,rpg_time_reset=100");
        rp.onCnp(0);
        rp.advance(4 * US);
        // 1000 bytes at 10 µs: BC event with T = 0, BC = 0, max < F: fast recovery, Rc = 3020507813; BC = 1.
        rp.onSent(1000, 10 * US);
        assertEquals(3_020_507_813L, rp.currentRateBps());
        assertEquals(1, rp.byteStage());
        // 600 bytes: below the reset, nothing.
        rp.onSent(600, 11 * US);
        assertEquals(3_020_507_813L, rp.currentRateBps());
        // 600 more (1200, 200 carried): max(T, BC) = 1 >= F, min = 0 <= F: additive, Rt = 4005000000,
        // Rc = 3512753907; BC = 2.
        rp.onSent(600, 12 * US);
        assertEquals(4_005_000_000L, rp.targetRateBps());
        assertEquals(3_512_753_907L, rp.currentRateBps());
        // 800 more (1000): additive again (min = T = 0): Rt = 4010000000, Rc = ceil((4010000000 + 3512753907) / 2)
        // = 3761376954; BC = 3.
        rp.onSent(800, 13 * US);
        assertEquals(4_010_000_000L, rp.targetRateBps());
        assertEquals(3_761_376_954L, rp.currentRateBps());
        assertEquals(3, rp.byteStage());
        // Timer at 104 µs, T = 0: min = 0, additive: Rt = 4015000000, Rc = 3888188477 (7776376955 / 2); T = 1.
        rp.advance(104 * US);
        assertEquals(4_015_000_000L, rp.targetRateBps());
        assertEquals(3_888_188_477L, rp.currentRateBps());
        // 204 µs, min(T, BC) = 1 = F, additive: Rt = 4020000000, Rc = ceil((4020000000 + 3888188477) / 2) =
        // 3954094239; T = 2.
        rp.advance(204 * US);
        assertEquals(4_020_000_000L, rp.targetRateBps());
        assertEquals(3_954_094_239L, rp.currentRateBps());
        // 304 µs, min(T, BC) = 2 > F: hyper, Rt = 4070000000, Rc = ceil((4070000000 + 3954094239) / 2) = 4012047120.
        rp.advance(304 * US);
        assertEquals(4_070_000_000L, rp.targetRateBps());
        assertEquals(4_012_047_120L, rp.currentRateBps());
    }

    @Test
    void withoutAnIncreaseSinceTheLastDecreaseTheTargetStays()
    {
        // CNP at 5 µs, after the first decrease (4 µs) and before any increase: the decrease at 8 µs keeps Rt = 4e9.
        // Alpha: 1003 at 4 µs, 998 at 5 (the update before the CNP counts), 6 µs with the CNP (+ 5120 to A): 998,
        // 7 µs 993, 8 µs 988 (A as in the class comment).
        // Rc = 2041015625 - floor(2041015625 * 988 / 2048) = 1056385041 (above 50 %: 1020507812).
        final DcqcnReactionPoint rp = rp("");
        rp.onCnp(0);
        rp.onCnp(5 * US);
        rp.advance(8 * US);
        assertEquals(4_000_000_000L, rp.targetRateBps());
        assertEquals(1_056_385_041L, rp.currentRateBps());
        assertEquals(988, rp.alpha());
    }

    @Test
    void aByteCounterIncreaseClampsTheTargetAsQcnDoes()
    {
        // Byte-counter increase (BC = 1, Rc 3020507813), CNP at 20 µs, decrease at the next check, 24 µs: Rt = Rc =
        // 3020507813 first. Alpha (A as in the class comment, 20 updates from 1047552): 927 at 20 µs; the update at
        // 21 µs adds the CNP's 5120, then three without: 914 at 24 µs.
        // Rc = 3020507813 - floor(3020507813 * 914 / 2048) = 1672488213.
        final DcqcnReactionPoint rp = rp(",rpg_byte_reset=1000,rpg_time_reset=1000");
        rp.onCnp(0);
        rp.advance(4 * US);
        rp.onSent(1000, 10 * US);
        assertEquals(3_020_507_813L, rp.currentRateBps());
        rp.onCnp(20 * US);
        rp.advance(24 * US);
        assertEquals(3_020_507_813L, rp.targetRateBps());
        assertEquals(1_672_488_213L, rp.currentRateBps());
    }

    @Test
    void aTimerIncreaseClampsTheTargetOnlyWithClampTgtRateAfterTimeInc()
    {
        // Timer increase (T = 1 at 104 µs, Rc 3020507813), CNP at 110 µs, decrease at 112 µs with alpha 596 (A from
        // 1047552 over 112 updates, + 5120 at 111; 597 at 110): Rc = 3020507813 - floor(3020507813 * 596 / 2048) =
        // 2141492844.
        // clamp_tgt_rate_after_time_inc = 1 (the default): Rt = Rc = 3020507813 before the cut.
        final DcqcnReactionPoint clamped = rp(",rpg_byte_reset=0,rpg_time_reset=100");
        clamped.onCnp(0);
        clamped.advance(104 * US);
        assertEquals(3_020_507_813L, clamped.currentRateBps());
        clamped.onCnp(110 * US);
        clamped.advance(112 * US);
        assertEquals(3_020_507_813L, clamped.targetRateBps());
        assertEquals(2_141_492_844L, clamped.currentRateBps());
        assertEquals(596, clamped.alpha());
        // clamp_tgt_rate_after_time_inc = 0: the same cut, Rt stays 4e9.
        final DcqcnReactionPoint free = rp(",rpg_byte_reset=0,rpg_time_reset=100,clamp_tgt_rate_after_time_inc=0");
        free.onCnp(0);
        free.advance(104 * US);
        free.onCnp(110 * US);
        free.advance(112 * US);
        assertEquals(4_000_000_000L, free.targetRateBps());
        assertEquals(2_141_492_844L, free.currentRateBps());
    }

    @Test
    void clampTgtRateSetsTheTargetOnEveryDecrease()
    {
        // clamp_tgt_rate 1: the first decrease (4 µs) already sets Rt = Rc = 4e9 before cutting Rc to 2041015625.
        final DcqcnReactionPoint rp = rp(",clamp_tgt_rate=1,rpg_byte_reset=0");
        rp.onCnp(0);
        rp.advance(4 * US);
        assertEquals(4_000_000_000L, rp.targetRateBps());
        rp.onCnp(5 * US);
        rp.advance(8 * US);
        assertEquals(2_041_015_625L, rp.targetRateBps(), "the second decrease clamps to the rate before it");
    }

    @Test
    void theFirstIncreaseAfterADeepCutDividesAFarTargetByEight()
    {
        // rpg_gd 10 and rpg_min_dec_fac 5 let one decrease cut deep: at 4 µs (alpha 1003) cut = 4e9 - floor(4e9 *
        // 1003 / 1024) = 82031250, below the 5 % floor, so Rc = 200000000; Rt stays 4e9 (no increase yet), more
        // than 10 times Rc.
        final String deep = ",rpg_gd=10,rpg_min_dec_fac=5,rpg_time_reset=300";
        final DcqcnReactionPoint timer = rp(deep + ",rpg_byte_reset=0");
        timer.onCnp(0);
        timer.advance(4 * US);
        assertEquals(200_000_000L, timer.currentRateBps());
        assertEquals(4_000_000_000L, timer.targetRateBps());
        // 304 µs, the timer's first event (T = 1 counting it), Rt > 10 Rc: Rt = 4e9 / 8 = 500000000 (instead of fast
        // recovery toward 4e9, which would give 2.1e9), Rc = (500000000 + 200000000) / 2 = 350000000.
        timer.advance(304 * US);
        assertEquals(500_000_000L, timer.targetRateBps());
        assertEquals(350_000_000L, timer.currentRateBps());
        // 604 µs, T = 2: no longer the first event; T = 1 = F before it: additive, Rt = 505000000,
        // Rc = ceil((505000000 + 350000000) / 2) = 427500000.
        timer.advance(604 * US);
        assertEquals(505_000_000L, timer.targetRateBps());
        assertEquals(427_500_000L, timer.currentRateBps());

        // The byte counter's first event does the same; its second is additive (max(T, BC) = 1 >= F); the timer's
        // first event at 304 µs finds Rt = 505000000 below 10 Rc: additive, Rt = 510000000,
        // Rc = ceil((510000000 + 427500000) / 2) = 468750000.
        final DcqcnReactionPoint bytes = rp(deep + ",rpg_byte_reset=1000");
        bytes.onCnp(0);
        bytes.advance(4 * US);
        bytes.onSent(1000, 10 * US);
        assertEquals(500_000_000L, bytes.targetRateBps());
        assertEquals(350_000_000L, bytes.currentRateBps());
        bytes.onSent(1000, 20 * US);
        assertEquals(505_000_000L, bytes.targetRateBps());
        assertEquals(427_500_000L, bytes.currentRateBps());
        bytes.advance(304 * US);
        assertEquals(510_000_000L, bytes.targetRateBps());
        assertEquals(468_750_000L, bytes.currentRateBps());
    }

    @Test
    void aJoiningQpIsCutFarMoreThanAnIncumbentByTheSameCnps()
    {
        // The join transient of bench/CC.md ("Why the third flow starts low"): at 25 Gb/s, a newcomer (first CNP at
        // line rate, alpha 1023) and an incumbent (limited at 13.5 Gb/s with alpha 35) get the same CNPs: one at 0,
        // then one 2 µs before each decrease check (2, 6, ..., 62 µs), so every check from 4 to 64 µs cuts. A CNP at
        // 4k - 2 raises the alpha update at 4k - 1 by 5120 (1/2^20 units), the check at 4k uses the alpha after the
        // update at 4k. Newcomer, alpha then Rc after each cut: 1008, 12695312500 (25e9 - floor(25e9 * 1008 /
        // 2048)); 993, 6539821625; 979, 3413608066; 965, 1805145281; ... 827, 3473897; 816, 2089767 at 64 µs.
        // Incumbent: 39, 13242919922 (13.5e9 - floor(13.5e9 * 39 / 2048)); 43, 12964870334; ... 94, 7880221542.
        final String at25 = "dcqcn,line_rate=25000,rpg_byte_reset=0";
        final DcqcnReactionPoint newcomer = new DcqcnReactionPoint(CongestionControl.parse(at25));
        final DcqcnReactionPoint incumbent = new DcqcnReactionPoint(
            CongestionControl.parse(at25 + ",rate_to_set_on_first_cnp=13500,initial_alpha_value=35"));
        newcomer.onCnp(0);
        incumbent.onCnp(0);
        for (int k = 1; k <= 16; k++)
        {
            newcomer.onCnp((4 * k - 2) * US);
            incumbent.onCnp((4 * k - 2) * US);
        }
        newcomer.advance(64 * US);
        incumbent.advance(64 * US);
        assertEquals(16, newcomer.decreases());
        assertEquals(2_089_767L, newcomer.currentRateBps(), "15 halvings and more: 0.008 % of the line rate");
        assertEquals(25_000_000_000L, newcomer.targetRateBps(), "no increase between the cuts: Rt stays");
        assertEquals(816, newcomer.alpha());
        assertEquals(7_880_221_542L, incumbent.currentRateBps(), "58 % of its rate");
        assertEquals(13_500_000_000L, incumbent.targetRateBps());
        assertEquals(94, incumbent.alpha());

        // The first timer increase, 300 µs after the last cut (364 µs). Newcomer: Rt = 25e9 > 10 Rc, QCN's target
        // reduction: Rt = 3125000000, Rc = ceil((3125000000 + 2089767) / 2) = 1563544884. Incumbent: Rt = 13.5e9 <
        // 10 Rc, fast recovery: Rc = ceil((13.5e9 + 7880221542) / 2) = 10690110771. The newcomer comes back at a
        // seventh of the incumbent's rate.
        newcomer.advance(364 * US);
        incumbent.advance(364 * US);
        assertEquals(3_125_000_000L, newcomer.targetRateBps());
        assertEquals(1_563_544_884L, newcomer.currentRateBps());
        assertEquals(13_500_000_000L, incumbent.targetRateBps());
        assertEquals(10_690_110_771L, incumbent.currentRateBps());
    }

    @Test
    void theLimiterIsReleasedAtTheMaximumRate()
    {
        // From 9e9 towards the 10 Gb/s line rate with 1000 Mb/s hyper steps: Rt reaches 10e9 within a few increases,
        // then each increase halves the distance (rounded up) until Rc = 10e9 and the limiter goes.
        final DcqcnReactionPoint rp = new DcqcnReactionPoint(CongestionControl.parse(
            "dcqcn,line_rate=10000,rate_to_set_on_first_cnp=9000,rpg_byte_reset=0,rpg_hai_rate=1000"));
        rp.onCnp(0);
        rp.advance(4 * US);
        assertTrue(rp.limited());
        rp.advance(100_000 * US);
        assertFalse(rp.limited());
        assertEquals(10_000_000_000L, rp.currentRateBps());
        // The next CNP is a first CNP again: 9e9, alpha 1023.
        rp.onCnp(100_001 * US);
        assertEquals(9_000_000_000L, rp.currentRateBps());
        assertEquals(1023, rp.alpha());
    }

    @Test
    void stateIsTheSameWhetherTheCallerLooksOftenOrOnce()
    {
        final String config = ",rpg_byte_reset=4000,rpg_time_reset=55";
        final DcqcnReactionPoint often = rp(config);
        final DcqcnReactionPoint once = rp(config);
        for (final DcqcnReactionPoint rp : new DcqcnReactionPoint[] {often, once})
        {
            rp.onCnp(0);
            rp.onCnp(7 * US);
            rp.onSent(3000, 30 * US);
            rp.onSent(3000, 31 * US);
            rp.onCnp(90 * US);
        }
        for (long t = 91; t <= 5_000; t++)
        {
            often.advance(t * US);
        }
        once.advance(5_000 * US);
        assertEquals(often.snapshot(), once.snapshot());
        assertEquals(often.increases(), once.increases());
        assertEquals(often.decreases(), once.decreases());
    }
}
