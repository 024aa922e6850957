package org.roce4j.verbs;

import static org.roce4j.ib.QpAttrMask.ACCESS_FLAGS;
import static org.roce4j.ib.QpAttrMask.ALT_PATH;
import static org.roce4j.ib.QpAttrMask.AV;
import static org.roce4j.ib.QpAttrMask.CUR_STATE;
import static org.roce4j.ib.QpAttrMask.DEST_QPN;
import static org.roce4j.ib.QpAttrMask.EN_SQD_ASYNC_NOTIFY;
import static org.roce4j.ib.QpAttrMask.MAX_DEST_RD_ATOMIC;
import static org.roce4j.ib.QpAttrMask.MAX_QP_RD_ATOMIC;
import static org.roce4j.ib.QpAttrMask.MIN_RNR_TIMER;
import static org.roce4j.ib.QpAttrMask.PATH_MIG_STATE;
import static org.roce4j.ib.QpAttrMask.PATH_MTU;
import static org.roce4j.ib.QpAttrMask.PKEY_INDEX;
import static org.roce4j.ib.QpAttrMask.PORT;
import static org.roce4j.ib.QpAttrMask.QKEY;
import static org.roce4j.ib.QpAttrMask.RETRY_CNT;
import static org.roce4j.ib.QpAttrMask.RNR_RETRY;
import static org.roce4j.ib.QpAttrMask.RQ_PSN;
import static org.roce4j.ib.QpAttrMask.SQ_PSN;
import static org.roce4j.ib.QpAttrMask.STATE;
import static org.roce4j.ib.QpAttrMask.TIMEOUT;
import static org.roce4j.ib.QpState.ERR;
import static org.roce4j.ib.QpState.INIT;
import static org.roce4j.ib.QpState.RESET;
import static org.roce4j.ib.QpState.RTR;
import static org.roce4j.ib.QpState.RTS;
import static org.roce4j.ib.QpState.SQD;
import static org.roce4j.ib.QpState.SQE;

import org.roce4j.ib.QpAttrMask;
import org.roce4j.ib.QpState;
import org.roce4j.ib.QpType;

/**
 * The QP state transition table of ibv_modify_qp as data: for each (current state, next state) whether the
 * transition is legal and, per QP type, which attribute mask bits it requires and which it allows besides
 * {@code STATE}.
 *
 * <p>Transcribed from the kernel's {@code qp_state_table} in drivers/infiniband/core/verbs.c (read at torvalds/linux
 * 009f773 and in a current tree, the Kingxukai/linux mirror at 9b44fff; the RC, UC, UD and GSI columns are
 * identical in both), which
 * {@code ib_modify_qp_is_ok()} checks and which rxe applies through {@code rxe_qp_chk_attr()}; it agrees with the
 * required attributes listed in ibv_modify_qp(3). The GSI column differs from UD in two places: RESET→INIT and
 * INIT→INIT do not take PORT. Notable facts the table encodes: RESET→ERR is not a legal transition (only
 * INIT and later states may go to ERR); CUR_STATE is optional only when leaving RTR, RTS, SQD or SQE towards RTS;
 * SQE→RTS takes no attribute at all for RC (an RC QP never enters SQE).
 */
public final class QpTransitions
{
    private static final QpType[] TYPES = QpType.values();
    private static final int STATES = QpState.values().length;

    /** [from][to] → rule, null when the transition is illegal. */
    private static final Rule[][] TABLE = new Rule[STATES][STATES];

    static
    {
        rule(RESET, RESET);
        rule(RESET, INIT)
            .require(QpType.RC, PKEY_INDEX | PORT | ACCESS_FLAGS)
            .require(QpType.UC, PKEY_INDEX | PORT | ACCESS_FLAGS)
            .require(QpType.UD, PKEY_INDEX | PORT | QKEY)
            .require(QpType.GSI, PKEY_INDEX | QKEY);

        rule(INIT, RESET);
        rule(INIT, ERR);
        rule(INIT, INIT)
            .allow(QpType.RC, PKEY_INDEX | PORT | ACCESS_FLAGS)
            .allow(QpType.UC, PKEY_INDEX | PORT | ACCESS_FLAGS)
            .allow(QpType.UD, PKEY_INDEX | PORT | QKEY)
            .allow(QpType.GSI, PKEY_INDEX | QKEY);
        rule(INIT, RTR)
            .require(QpType.RC, AV | PATH_MTU | DEST_QPN | RQ_PSN | MAX_DEST_RD_ATOMIC | MIN_RNR_TIMER)
            .require(QpType.UC, AV | PATH_MTU | DEST_QPN | RQ_PSN)
            .allow(QpType.RC, ALT_PATH | ACCESS_FLAGS | PKEY_INDEX)
            .allow(QpType.UC, ALT_PATH | ACCESS_FLAGS | PKEY_INDEX)
            .allow(QpType.UD, PKEY_INDEX | QKEY)
            .allow(QpType.GSI, PKEY_INDEX | QKEY);

        rule(RTR, RESET);
        rule(RTR, ERR);
        rule(RTR, RTS)
            .require(QpType.RC, TIMEOUT | RETRY_CNT | RNR_RETRY | SQ_PSN | MAX_QP_RD_ATOMIC)
            .require(QpType.UC, SQ_PSN)
            .require(QpType.UD, SQ_PSN)
            .require(QpType.GSI, SQ_PSN)
            .allow(QpType.RC, CUR_STATE | ALT_PATH | ACCESS_FLAGS | MIN_RNR_TIMER | PATH_MIG_STATE)
            .allow(QpType.UC, CUR_STATE | ALT_PATH | ACCESS_FLAGS | PATH_MIG_STATE)
            .allow(QpType.UD, CUR_STATE | QKEY)
            .allow(QpType.GSI, CUR_STATE | QKEY);

        rule(RTS, RESET);
        rule(RTS, ERR);
        rule(RTS, RTS)
            .allow(QpType.RC, CUR_STATE | ACCESS_FLAGS | ALT_PATH | PATH_MIG_STATE | MIN_RNR_TIMER)
            .allow(QpType.UC, CUR_STATE | ACCESS_FLAGS | ALT_PATH | PATH_MIG_STATE)
            .allow(QpType.UD, CUR_STATE | QKEY)
            .allow(QpType.GSI, CUR_STATE | QKEY);
        rule(RTS, SQD)
            .allow(QpType.RC, EN_SQD_ASYNC_NOTIFY)
            .allow(QpType.UC, EN_SQD_ASYNC_NOTIFY)
            .allow(QpType.UD, EN_SQD_ASYNC_NOTIFY)
            .allow(QpType.GSI, EN_SQD_ASYNC_NOTIFY);

        rule(SQD, RESET);
        rule(SQD, ERR);
        rule(SQD, RTS)
            .allow(QpType.RC, CUR_STATE | ALT_PATH | ACCESS_FLAGS | MIN_RNR_TIMER | PATH_MIG_STATE)
            .allow(QpType.UC, CUR_STATE | ALT_PATH | ACCESS_FLAGS | PATH_MIG_STATE)
            .allow(QpType.UD, CUR_STATE | QKEY)
            .allow(QpType.GSI, CUR_STATE | QKEY);
        rule(SQD, SQD)
            .allow(QpType.RC, PORT | AV | TIMEOUT | RETRY_CNT | RNR_RETRY | MAX_QP_RD_ATOMIC | MAX_DEST_RD_ATOMIC |
                ALT_PATH | ACCESS_FLAGS | PKEY_INDEX | MIN_RNR_TIMER | PATH_MIG_STATE)
            .allow(QpType.UC, AV | ALT_PATH | ACCESS_FLAGS | PKEY_INDEX | PATH_MIG_STATE)
            .allow(QpType.UD, PKEY_INDEX | QKEY)
            .allow(QpType.GSI, PKEY_INDEX | QKEY);

        rule(SQE, RESET);
        rule(SQE, ERR);
        rule(SQE, RTS)
            .allow(QpType.UC, CUR_STATE | ACCESS_FLAGS)
            .allow(QpType.UD, CUR_STATE | QKEY)
            .allow(QpType.GSI, CUR_STATE | QKEY);

        rule(ERR, RESET);
        rule(ERR, ERR);
    }

    private QpTransitions()
    {
    }

    /**
     * @param from current state.
     * @param to   next state.
     * @return true when ibv_modify_qp may move a QP from {@code from} to {@code to}.
     */
    public static boolean isLegal(final QpState from, final QpState to)
    {
        return null != TABLE[from.ordinal()][to.ordinal()];
    }

    /**
     * @param from current state.
     * @param to   next state.
     * @param type QP type.
     * @return the {@link QpAttrMask} bits the transition requires (STATE not included).
     * @throws IllegalArgumentException when the transition is illegal.
     */
    public static int required(final QpState from, final QpState to, final QpType type)
    {
        return rule(from, to, type).required[type.ordinal()];
    }

    /**
     * @param from current state.
     * @param to   next state.
     * @param type QP type.
     * @return the {@link QpAttrMask} bits the transition accepts besides the required ones (STATE not included).
     * @throws IllegalArgumentException when the transition is illegal.
     */
    public static int optional(final QpState from, final QpState to, final QpType type)
    {
        return rule(from, to, type).optional[type.ordinal()];
    }

    /**
     * @param from current state.
     * @return the states a QP in {@code from} may move to, e.g. "RESET, INIT".
     */
    public static String legalTargets(final QpState from)
    {
        final StringBuilder sb = new StringBuilder();
        for (final QpState to : QpState.values())
        {
            if (isLegal(from, to))
            {
                sb.append(sb.length() > 0 ? ", " : "").append(to);
            }
        }
        return sb.toString();
    }

    /**
     * Check a mask against the table as {@code ib_modify_qp_is_ok()} does, naming the first problem.
     *
     * @param from current state (the QP's own, or cur_qp_state when CUR_STATE is in the mask).
     * @param to   next state (qp_state when STATE is in the mask, else {@code from}).
     * @param type QP type.
     * @param mask {@link QpAttrMask} bits of the modify.
     * @return null when the modify is allowed, else a message naming the problem.
     */
    public static String check(final QpState from, final QpState to, final QpType type, final int mask)
    {
        final Rule rule = TABLE[from.ordinal()][to.ordinal()];
        if (null == rule)
        {
            final String how = 0 == (mask & STATE) ? " (the mask has no STATE, so the QP would stay in " + from + ")" :
                "";
            return "transition " + from + "→" + to + " is not allowed" + how + "; from " + from + " a QP may go to " +
                legalTargets(from);
        }
        final int required = rule.required[type.ordinal()];
        final int optional = rule.optional[type.ordinal()];
        final int missing = required & ~mask;
        if (0 != missing)
        {
            return from + "→" + to + " for " + type + " requires " + QpAttrMask.toString(required) + "; missing " +
                QpAttrMask.toString(missing);
        }
        final int extra = mask & ~(required | optional | STATE);
        if (0 != extra)
        {
            final int allowed = required | optional;
            return (1 == Integer.bitCount(extra) ? "attribute " : "attributes ") + QpAttrMask.toString(extra) +
                " not allowed in " + from + "→" + to + " for " + type + " (allowed: " +
                (0 == allowed ? "none" : QpAttrMask.toString(allowed)) + ")";
        }
        return null;
    }

    private static Rule rule(final QpState from, final QpState to, final QpType type)
    {
        final Rule rule = TABLE[from.ordinal()][to.ordinal()];
        if (null == rule)
        {
            throw new IllegalArgumentException("transition " + from + "→" + to + " is not allowed for " + type);
        }
        return rule;
    }

    private static Rule rule(final QpState from, final QpState to)
    {
        final Rule rule = new Rule();
        TABLE[from.ordinal()][to.ordinal()] = rule;
        return rule;
    }

    /**
     * One legal transition: required and optional masks per QP type.
     */
    private static final class Rule
    {
        final int[] required = new int[TYPES.length];
        final int[] optional = new int[TYPES.length];

        Rule require(final QpType type, final int mask)
        {
            required[type.ordinal()] = mask;
            return this;
        }

        Rule allow(final QpType type, final int mask)
        {
            optional[type.ordinal()] = mask;
            return this;
        }
    }
}
