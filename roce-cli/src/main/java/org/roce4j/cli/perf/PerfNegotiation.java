package org.roce4j.cli.perf;

import org.roce4j.cm.perftest.PerftestNegotiation;
import org.roce4j.ib.QpType;
import org.roce4j.verbs.DeviceAttributes;

/**
 * The values of perftest 6.28's parameter negotiation for a roce perf run: what perftest's parser would hold for the
 * same command line (init_perftest_params, then parser's checks), so that a perftest peer finds them equal.
 */
final class PerfNegotiation
{
    /** DEF_DURATION in perftest_parameters.h: the duration field holds it when -D is not given. */
    static final int DEF_DURATION = 5;
    /** The struct perftest sends from its x86-64 mlx5dv builds (Debian's, Ubuntu's, NVIDIA's). */
    static final boolean MLX5DV_LAYOUT = true;

    private PerfNegotiation()
    {
    }

    /**
     * @param r      the resolved run.
     * @param device this device's attributes (fw_ver, vendor_id, max_qp_rd_atom go into the struct).
     * @return this side's struct.
     */
    static PerftestNegotiation local(final PerfSettings.Resolved r, final DeviceAttributes device)
    {
        final PerfTest.Verb verb = r.test.verb();
        final int verbValue = switch (verb)
        {
            case SEND -> 0;
            case WRITE -> 2;
            case READ -> 4;
            case ATOMIC -> 5;
        };
        final int connection = QpType.UC == r.connection ? 1 : QpType.UD == r.connection ? 2 : 0;
        // user_param is zeroed and atomicType set only for the atomic tools (FETCH_AND_ADD unless -A CMP_AND_SWAP).
        final int atomicType = PerfTest.Verb.ATOMIC == verb &&
            PerfSettings.AtomicType.FETCH_AND_ADD == r.atomicType ? 1 : 0;
        return PerftestNegotiation.of(new PerftestNegotiation.Params(
            r.all ? 1 : 0, connection, verbValue, r.test.isLatency() ? 0 : 1, atomicType, r.duration ? 1 : 0,
            r.reportGbits ? 0 : 1, r.all ? PerfSettings.MAX_SIZE : r.size, r.duration ? 0 : r.iters, r.qps,
            r.duration ? r.durationSec : DEF_DURATION, r.rdmaCm, device.fwVer(), device.vendorId(),
            device.maxQpRdAtom()), MLX5DV_LAYOUT);
    }

    /**
     * compare_ibv_device: outstanding READs and atomics may not exceed the peer's max_qp_rd_atom.
     *
     * @param r      the resolved run; its out_reads is lowered when needed.
     * @param remote the peer's struct.
     * @return perftest's line saying so, or null when nothing changed.
     */
    static String capOutReads(final PerfSettings.Resolved r, final PerftestNegotiation remote)
    {
        if (r.outReads > remote.maxQpRdAtom())
        {
            r.outReads = remote.maxQpRdAtom();
            return " out_reads is greater than remote max_qp_rd_atom, using remote max_qp_rd_atom";
        }
        return null;
    }
}
