package org.roce4j.transport.engine;

/**
 * The completer's part of a QP (rxe struct rxe_comp_info): the oldest unacknowledged PSN, the retry budgets and the
 * retransmit timer.
 */
final class CompleterState
{
    /** Oldest PSN not yet acknowledged: the next response PSN expected. */
    int psn;
    /** Opcode byte of the last READ response accepted inside a multi-packet response, -1 otherwise. */
    int lastOpcode = -1;
    /** Transport retries left (retry_cnt, 7 included; forever only with EngineConfig.retryCountSevenForever). */
    int retryLeft;
    /** RNR retries left (rnr_retry; 7 means infinite, IBA 9.7.5.2.8). */
    int rnrRetryLeft;
    /** Retransmit deadline; 0 when nothing is outstanding (rxe retrans_timer, pushed forward on progress). */
    long retransmitDeadlineNs;
    /** A retry was requested and no good response has arrived since (rxe comp.started_retry). */
    boolean startedRetry;

    void reset(final int startPsn, final int retryCnt, final int rnrRetry)
    {
        psn = startPsn;
        lastOpcode = -1;
        retryLeft = retryCnt;
        rnrRetryLeft = rnrRetry;
        retransmitDeadlineNs = 0;
        startedRetry = false;
    }
}
