package org.roce4j.cli.perf;

import java.io.IOException;
import java.util.Locale;

import org.roce4j.ib.WorkCompletion;

/**
 * A work completion with an error status ended the run (a dead peer's RETRY_EXC_ERR, say). Its message is exactly
 * what perftest 4.5 (Debian's, the version {@code roce perf} speaks) prints on stderr: NOTIFY_COMP_ERROR_SEND or
 * NOTIFY_COMP_ERROR_RECV (perftest_resources.h), then the line the tool's main prints when its run_iter function
 * fails; {@link #exitCode()} is the tool's exit code (write_bw.c, read_bw.c, atomic_bw.c, write_lat.c return
 * FAILURE, 1; send_bw.c, send_lat.c and read_lat.c return 17, as read_bw.c does for a size sweep).
 */
public final class PerfCompletionError extends IOException
{
    private static final long serialVersionUID = 1L;

    private final int exitCode;

    private PerfCompletionError(final String message, final int exitCode)
    {
        super(message);
        this.exitCode = exitCode;
    }

    /**
     * A send completion failed (NOTIFY_COMP_ERROR_SEND; it says "client" on either side, as perftest's does).
     *
     * @param r    the run's settings (the tool decides the last line and the exit code).
     * @param wc   the failed completion.
     * @param scnt WRs posted so far.
     * @param ccnt WRs completed so far.
     * @return the error to throw.
     */
    static PerfCompletionError send(final PerfSettings.Resolved r, final WorkCompletion wc, final long scnt,
        final long ccnt)
    {
        return of(r, " Completion with error at client\n" + failedStatus(wc) +
            String.format(Locale.ROOT, "scnt=%d, ccnt=%d\n", scnt, ccnt));
    }

    /**
     * A receive completion failed (NOTIFY_COMP_ERROR_RECV).
     *
     * @param r    the run's settings.
     * @param wc   the failed completion.
     * @param rcnt messages received so far.
     * @return the error to throw.
     */
    static PerfCompletionError receive(final PerfSettings.Resolved r, final WorkCompletion wc, final long rcnt)
    {
        return of(r, " Completion with error at server\n" + failedStatus(wc) +
            String.format(Locale.ROOT, " rcnt=%d\n", rcnt));
    }

    /**
     * @return the exit code the perftest tool returns after this failure.
     */
    public int exitCode()
    {
        return exitCode;
    }

    private static String failedStatus(final WorkCompletion wc)
    {
        // wc.vendor_err: roce4j, like rxe, has no vendor syndrome, so it is 0 (mlx5 prints e.g. 0x81 here).
        return String.format(Locale.ROOT, " Failed status %d: wr_id %d syndrom 0x%x\n", wc.status().verbsValue(),
            (int)wc.wrId(), 0);
    }

    private static PerfCompletionError of(final PerfSettings.Resolved r, final String notified)
    {
        switch (r.test)
        {
            case WRITE_BW:
                return new PerfCompletionError(notified + " Failed to complete run_iter_bw function successfully\n", 1);
            case READ_BW:
                return r.all ? new PerfCompletionError(notified, 17) :
                    new PerfCompletionError(notified + " Failed to complete run_iter_bw function successfully\n", 1);
            case ATOMIC_BW:
                return new PerfCompletionError(notified + " Error occurred in run_iter function\n", 1);
            case WRITE_LAT:
                return new PerfCompletionError(notified + "Test exited with Error\n", 1);
            default:
                // send_bw, send_lat, read_lat: error = 17, nothing more printed.
                return new PerfCompletionError(notified, 17);
        }
    }
}
