package org.roce4j.verbs;

import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.roce4j.transport.QpAttrMask;
import org.roce4j.transport.QpState;
import org.roce4j.transport.QpType;

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
     * One line per legal (from, to, type): required bits, then optional bits ("-" for none). "ALL" in the type
     * column stands for RC, UC, UD and GSI alike.
     */
    private static final String EXPECTED = """
        RESET RESET ALL -                                                    -
        RESET INIT  RC  PKEY_INDEX|PORT|ACCESS_FLAGS                         -
        RESET INIT  UC  PKEY_INDEX|PORT|ACCESS_FLAGS                         -
        RESET INIT  UD  PKEY_INDEX|PORT|QKEY                                 -
        RESET INIT  GSI PKEY_INDEX|QKEY                                      -
        INIT  RESET ALL -                                                    -
        INIT  ERR   ALL -                                                    -
        INIT  INIT  RC  -                                                    PKEY_INDEX|PORT|ACCESS_FLAGS
        INIT  INIT  UC  -                                                    PKEY_INDEX|PORT|ACCESS_FLAGS
        INIT  INIT  UD  -                                                    PKEY_INDEX|PORT|QKEY
        INIT  INIT  GSI -                                                    PKEY_INDEX|QKEY
        INIT  RTR   RC  AV|PATH_MTU|DEST_QPN|RQ_PSN|MAX_DEST_RD_ATOMIC|MIN_RNR_TIMER ALT_PATH|ACCESS_FLAGS|PKEY_INDEX
        INIT  RTR   UC  AV|PATH_MTU|DEST_QPN|RQ_PSN                          ALT_PATH|ACCESS_FLAGS|PKEY_INDEX
        INIT  RTR   UD  -                                                    PKEY_INDEX|QKEY
        INIT  RTR   GSI -                                                    PKEY_INDEX|QKEY
        RTR   RESET ALL -                                                    -
        RTR   ERR   ALL -                                                    -
        RTR   RTS   RC  SQ_PSN|TIMEOUT|RETRY_CNT|RNR_RETRY|MAX_QP_RD_ATOMIC  CUR_STATE|ALT_PATH|ACCESS_FLAGS|MIN_RNR_TIMER|PATH_MIG_STATE
        RTR   RTS   UC  SQ_PSN                                               CUR_STATE|ALT_PATH|ACCESS_FLAGS|PATH_MIG_STATE
        RTR   RTS   UD  SQ_PSN                                               CUR_STATE|QKEY
        RTR   RTS   GSI SQ_PSN                                               CUR_STATE|QKEY
        RTS   RESET ALL -                                                    -
        RTS   ERR   ALL -                                                    -
        RTS   RTS   RC  -                                                    CUR_STATE|ACCESS_FLAGS|ALT_PATH|PATH_MIG_STATE|MIN_RNR_TIMER
        RTS   RTS   UC  -                                                    CUR_STATE|ACCESS_FLAGS|ALT_PATH|PATH_MIG_STATE
        RTS   RTS   UD  -                                                    CUR_STATE|QKEY
        RTS   RTS   GSI -                                                    CUR_STATE|QKEY
        RTS   SQD   ALL -                                                    EN_SQD_ASYNC_NOTIFY
        SQD   RESET ALL -                                                    -
        SQD   ERR   ALL -                                                    -
        SQD   RTS   RC  -                                                    CUR_STATE|ALT_PATH|ACCESS_FLAGS|MIN_RNR_TIMER|PATH_MIG_STATE
        SQD   RTS   UC  -                                                    CUR_STATE|ALT_PATH|ACCESS_FLAGS|PATH_MIG_STATE
        SQD   RTS   UD  -                                                    CUR_STATE|QKEY
        SQD   RTS   GSI -                                                    CUR_STATE|QKEY
        SQD   SQD   RC  -                                                    PORT|AV|TIMEOUT|RETRY_CNT|RNR_RETRY|MAX_QP_RD_ATOMIC|MAX_DEST_RD_ATOMIC|ALT_PATH|ACCESS_FLAGS|PKEY_INDEX|MIN_RNR_TIMER|PATH_MIG_STATE
        SQD   SQD   UC  -                                                    AV|ALT_PATH|ACCESS_FLAGS|PKEY_INDEX|PATH_MIG_STATE
        SQD   SQD   UD  -                                                    PKEY_INDEX|QKEY
        SQD   SQD   GSI -                                                    PKEY_INDEX|QKEY
        SQE   RESET ALL -                                                    -
        SQE   ERR   ALL -                                                    -
        SQE   RTS   RC  -                                                    -
        SQE   RTS   UC  -                                                    CUR_STATE|ACCESS_FLAGS
        SQE   RTS   UD  -                                                    CUR_STATE|QKEY
        SQE   RTS   GSI -                                                    CUR_STATE|QKEY
        ERR   RESET ALL -                                                    -
        ERR   ERR   ALL -                                                    -
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
            assertEquals(5, f.length, "malformed line: " + line);
            final QpState from = QpState.valueOf(f[0]);
            final QpState to = QpState.valueOf(f[1]);
            final Expected value = new Expected(mask(f[3]), mask(f[4]));
            if ("ALL".equals(f[2]))
            {
                for (final QpType type : QpType.values())
                {
                    map.put(key(from, to, type), value);
                }
            }
            else
            {
                map.put(key(from, to, QpType.valueOf(f[2])), value);
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
