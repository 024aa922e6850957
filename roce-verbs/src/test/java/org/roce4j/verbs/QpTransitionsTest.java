package org.roce4j.verbs;

import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.roce4j.ib.QpAttrMask;
import org.roce4j.ib.QpState;
import org.roce4j.ib.QpType;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The transition table checked whole against an independent listing, transcribed by hand from the kernel's
 * qp_state_table (drivers/infiniband/core/verbs.c) and cross-checked with the required attributes of
 * ibv_modify_qp(3): every (from, to, type) not listed here must be illegal.
 */
class QpTransitionsTest
{
    /**
     * The legal transitions: "legal" lines list a (from, to) for every type; "req" and "opt" lines give the required
     * and optional bits of one type (several lines of one kind are or-ed together). "ALL" stands for RC, UC, UD and
     * GSI alike. A type with no "req" / "opt" line has none.
     */
    private static final String EXPECTED = """
        RESET RESET ALL legal
        RESET INIT  ALL legal
        RESET INIT  RC  req PKEY_INDEX|PORT|ACCESS_FLAGS
        RESET INIT  UC  req PKEY_INDEX|PORT|ACCESS_FLAGS
        RESET INIT  UD  req PKEY_INDEX|PORT|QKEY
        RESET INIT  GSI req PKEY_INDEX|QKEY
        INIT  RESET ALL legal
        INIT  ERR   ALL legal
        INIT  INIT  ALL legal
        INIT  INIT  RC  opt PKEY_INDEX|PORT|ACCESS_FLAGS
        INIT  INIT  UC  opt PKEY_INDEX|PORT|ACCESS_FLAGS
        INIT  INIT  UD  opt PKEY_INDEX|PORT|QKEY
        INIT  INIT  GSI opt PKEY_INDEX|QKEY
        INIT  RTR   ALL legal
        INIT  RTR   RC  req AV|PATH_MTU|DEST_QPN|RQ_PSN|MAX_DEST_RD_ATOMIC|MIN_RNR_TIMER
        INIT  RTR   RC  opt ALT_PATH|ACCESS_FLAGS|PKEY_INDEX
        INIT  RTR   UC  req AV|PATH_MTU|DEST_QPN|RQ_PSN
        INIT  RTR   UC  opt ALT_PATH|ACCESS_FLAGS|PKEY_INDEX
        INIT  RTR   UD  opt PKEY_INDEX|QKEY
        INIT  RTR   GSI opt PKEY_INDEX|QKEY
        RTR   RESET ALL legal
        RTR   ERR   ALL legal
        RTR   RTS   ALL legal
        RTR   RTS   RC  req SQ_PSN|TIMEOUT|RETRY_CNT|RNR_RETRY|MAX_QP_RD_ATOMIC
        RTR   RTS   RC  opt CUR_STATE|ALT_PATH|ACCESS_FLAGS|MIN_RNR_TIMER|PATH_MIG_STATE
        RTR   RTS   UC  req SQ_PSN
        RTR   RTS   UC  opt CUR_STATE|ALT_PATH|ACCESS_FLAGS|PATH_MIG_STATE
        RTR   RTS   UD  req SQ_PSN
        RTR   RTS   UD  opt CUR_STATE|QKEY
        RTR   RTS   GSI req SQ_PSN
        RTR   RTS   GSI opt CUR_STATE|QKEY
        RTS   RESET ALL legal
        RTS   ERR   ALL legal
        RTS   RTS   ALL legal
        RTS   RTS   RC  opt CUR_STATE|ACCESS_FLAGS|ALT_PATH|PATH_MIG_STATE|MIN_RNR_TIMER
        RTS   RTS   UC  opt CUR_STATE|ACCESS_FLAGS|ALT_PATH|PATH_MIG_STATE
        RTS   RTS   UD  opt CUR_STATE|QKEY
        RTS   RTS   GSI opt CUR_STATE|QKEY
        RTS   SQD   ALL legal
        RTS   SQD   ALL opt EN_SQD_ASYNC_NOTIFY
        SQD   RESET ALL legal
        SQD   ERR   ALL legal
        SQD   RTS   ALL legal
        SQD   RTS   RC  opt CUR_STATE|ALT_PATH|ACCESS_FLAGS|MIN_RNR_TIMER|PATH_MIG_STATE
        SQD   RTS   UC  opt CUR_STATE|ALT_PATH|ACCESS_FLAGS|PATH_MIG_STATE
        SQD   RTS   UD  opt CUR_STATE|QKEY
        SQD   RTS   GSI opt CUR_STATE|QKEY
        SQD   SQD   ALL legal
        SQD   SQD   RC  opt PORT|AV|TIMEOUT|RETRY_CNT|RNR_RETRY|MAX_QP_RD_ATOMIC|MAX_DEST_RD_ATOMIC
        SQD   SQD   RC  opt ALT_PATH|ACCESS_FLAGS|PKEY_INDEX|MIN_RNR_TIMER|PATH_MIG_STATE
        SQD   SQD   UC  opt AV|ALT_PATH|ACCESS_FLAGS|PKEY_INDEX|PATH_MIG_STATE
        SQD   SQD   UD  opt PKEY_INDEX|QKEY
        SQD   SQD   GSI opt PKEY_INDEX|QKEY
        SQE   RESET ALL legal
        SQE   ERR   ALL legal
        SQE   RTS   ALL legal
        SQE   RTS   UC  opt CUR_STATE|ACCESS_FLAGS
        SQE   RTS   UD  opt CUR_STATE|QKEY
        SQE   RTS   GSI opt CUR_STATE|QKEY
        ERR   RESET ALL legal
        ERR   ERR   ALL legal
        """;

    private record Expected(int required, int optional)
    {
    }

    private static final Map<String, Integer> BITS = new HashMap<>();

    static
    {
        for (int bit = 0; bit < 21; bit++)
        {
            BITS.put(QpAttrMask.toString(1 << bit), 1 << bit);
        }
    }

    private static int mask(final String names)
    {
        if ("-".equals(names))
        {
            return 0;
        }
        int mask = 0;
        for (final String name : names.split("\\|"))
        {
            final Integer bit = BITS.get(name);
            if (null == bit)
            {
                throw new AssertionError("unknown attribute name in the expected listing: " + name);
            }
            mask |= bit;
        }
        return mask;
    }

    private static String key(final QpState from, final QpState to, final QpType type)
    {
        return from + " " + to + " " + type;
    }

    private static Map<String, Expected> expected()
    {
        final Map<String, Expected> map = new HashMap<>();
        for (final String line : EXPECTED.strip().split("\n"))
        {
            final String[] f = line.trim().split("\\s+");
            final QpState from = QpState.valueOf(f[0]);
            final QpState to = QpState.valueOf(f[1]);
            final QpType[] types = "ALL".equals(f[2]) ? QpType.values() : new QpType[] {QpType.valueOf(f[2])};
            for (final QpType type : types)
            {
                final String key = key(from, to, type);
                final Expected old = map.get(key);
                switch (f[3])
                {
                    case "legal" -> map.put(key, new Expected(0, 0));
                    case "req" -> map.put(key, new Expected(old.required() | mask(f[4]), old.optional()));
                    case "opt" -> map.put(key, new Expected(old.required(), old.optional() | mask(f[4])));
                    default -> throw new AssertionError("malformed line: " + line);
                }
            }
        }
        return map;
    }

    @Test
    void tableMatchesTheKernelListingWhole()
    {
        final Map<String, Expected> expected = expected();
        int legal = 0;
        for (final QpState from : QpState.values())
        {
            for (final QpState to : QpState.values())
            {
                for (final QpType type : QpType.values())
                {
                    final Expected e = expected.get(key(from, to, type));
                    final String where = from + "→" + to + " " + type;
                    assertEquals(null != e, QpTransitions.isLegal(from, to), where + " legality");
                    if (null != e)
                    {
                        legal++;
                        assertEquals(QpAttrMask.toString(e.required()),
                            QpAttrMask.toString(QpTransitions.required(from, to, type)), where + " required");
                        assertEquals(QpAttrMask.toString(e.optional()),
                            QpAttrMask.toString(QpTransitions.optional(from, to, type)), where + " optional");
                    }
                    else
                    {
                        assertThrows(IllegalArgumentException.class, () -> QpTransitions.required(from, to, type));
                    }
                }
            }
        }
        // 22 legal (from, to) pairs, each for four types.
        assertEquals(22 * 4, legal);
    }

    @Test
    void checkAcceptsExactlyRequiredPlusAnySubsetOfOptional()
    {
        for (final QpState from : QpState.values())
        {
            for (final QpState to : QpState.values())
            {
                if (!QpTransitions.isLegal(from, to))
                {
                    continue;
                }
                for (final QpType type : QpType.values())
                {
                    final int required = QpTransitions.required(from, to, type);
                    final int optional = QpTransitions.optional(from, to, type);
                    final String where = from + "→" + to + " " + type;
                    assertNull(QpTransitions.check(from, to, type, QpAttrMask.STATE | required), where);
                    assertNull(QpTransitions.check(from, to, type, QpAttrMask.STATE | required | optional), where);
                    for (int bit = 0; bit < 21; bit++)
                    {
                        final int b = 1 << bit;
                        if (QpAttrMask.STATE == b)
                        {
                            continue;
                        }
                        final String withExtra = QpTransitions.check(from, to, type, QpAttrMask.STATE | required | b);
                        assertEquals(0 == (b & ~(required | optional)), null == withExtra, where + " + " +
                            QpAttrMask.toString(b) + ": " + withExtra);
                        if (0 != (required & b))
                        {
                            assertTrue(QpTransitions.check(from, to, type, QpAttrMask.STATE | (required & ~b))
                                .contains("missing " + QpAttrMask.toString(b)), where);
                        }
                    }
                }
            }
        }
    }

    @Test
    void listingAgreesWithIbvModifyQpManPage()
    {
        // ibv_modify_qp(3), "required attributes" per transition, written out independently of the kernel table.
        assertEquals(mask("PKEY_INDEX|PORT|ACCESS_FLAGS"), QpTransitions.required(QpState.RESET, QpState.INIT,
            QpType.RC));
        assertEquals(mask("PKEY_INDEX|PORT|QKEY"), QpTransitions.required(QpState.RESET, QpState.INIT, QpType.UD));
        assertEquals(mask("AV|PATH_MTU|DEST_QPN|RQ_PSN|MAX_DEST_RD_ATOMIC|MIN_RNR_TIMER"),
            QpTransitions.required(QpState.INIT, QpState.RTR, QpType.RC));
        assertEquals(mask("AV|PATH_MTU|DEST_QPN|RQ_PSN"), QpTransitions.required(QpState.INIT, QpState.RTR,
            QpType.UC));
        assertEquals(0, QpTransitions.required(QpState.INIT, QpState.RTR, QpType.UD));
        assertEquals(mask("SQ_PSN|MAX_QP_RD_ATOMIC|RETRY_CNT|RNR_RETRY|TIMEOUT"),
            QpTransitions.required(QpState.RTR, QpState.RTS, QpType.RC));
        assertEquals(mask("SQ_PSN"), QpTransitions.required(QpState.RTR, QpState.RTS, QpType.UD));
    }

    @Test
    void messagesNameTheProblem()
    {
        assertEquals("RTR→RTS for RC requires TIMEOUT|RETRY_CNT|RNR_RETRY|MAX_QP_RD_ATOMIC|SQ_PSN; missing TIMEOUT",
            QpTransitions.check(QpState.RTR, QpState.RTS, QpType.RC, QpAttrMask.STATE | QpAttrMask.SQ_PSN |
                QpAttrMask.RETRY_CNT | QpAttrMask.RNR_RETRY | QpAttrMask.MAX_QP_RD_ATOMIC));
        assertEquals("attribute PATH_MTU not allowed in INIT→INIT for RC (allowed: ACCESS_FLAGS|PKEY_INDEX|PORT)",
            QpTransitions.check(QpState.INIT, QpState.INIT, QpType.RC, QpAttrMask.STATE | QpAttrMask.PATH_MTU));
        assertEquals("transition RESET→RTS is not allowed; from RESET a QP may go to RESET, INIT",
            QpTransitions.check(QpState.RESET, QpState.RTS, QpType.RC, QpAttrMask.STATE));
        assertEquals("transition RTR→RTR is not allowed (the mask has no STATE, so the QP would stay in RTR); " +
            "from RTR a QP may go to RESET, RTS, ERR",
            QpTransitions.check(QpState.RTR, QpState.RTR, QpType.UC, QpAttrMask.QKEY));
        assertFalse(QpTransitions.isLegal(QpState.RESET, QpState.ERR), "the kernel has no RESET→ERR");
        assertEquals("RESET, INIT", QpTransitions.legalTargets(QpState.RESET));
        assertEquals("RESET, RTS, SQD, ERR", QpTransitions.legalTargets(QpState.SQD));
    }
}
