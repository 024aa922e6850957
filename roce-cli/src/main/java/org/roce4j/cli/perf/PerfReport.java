package org.roce4j.cli.perf;

import java.util.Locale;

import org.roce4j.cm.perftest.PerftestDest;
import org.roce4j.cm.perftest.PerftestReport;
import org.roce4j.ib.QpType;

/**
 * perftest 4.5+0.17's report layout, character for character (the RESULT_* and REPORT_* formats of
 * perftest_parameters.h, ctx_print_test_info and ctx_print_pingpong_data), so scripts that parse perftest's output
 * parse {@code roce perf}'s.
 */
public final class PerfReport
{
    /** The rule between sections (RESULT_LINE). */
    public static final String RESULT_LINE =
        "---------------------------------------------------------------------------------------";
    /** Header of the bandwidth table in MiB/s (RESULT_FMT). */
    public static final String BW_HEADER =
        " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]";
    /** Header of the bandwidth table in Gb/s (RESULT_FMT_G). */
    public static final String BW_HEADER_GBITS =
        " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]";
    /** Header of the latency table (RESULT_FMT_LAT, with its trailing space). */
    public static final String LAT_HEADER = " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    " +
        "t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] ";
    /** Header of the latency table in duration mode (RESULT_FMT_LAT_DUR). */
    public static final String LAT_DURATION_HEADER = " #bytes        #iterations       t_avg[usec]    tps average";
    /** What a perftest server prints before it accepts the client. */
    public static final String WAITING = "\n************************************\n" +
        "* Waiting for client to connect... *\n" +
        "************************************";

    private PerfReport()
    {
    }

    /**
     * ctx_print_test_info: the block that opens every run.
     *
     * @param r          the resolved parameters.
     * @param device     the device name perftest would print (-d, else the device's).
     * @param mtuBytes   the agreed MTU.
     * @param gidIndex   the GID index in use.
     * @return the lines, each ending in a newline.
     */
    public static String testInfo(final PerfSettings.Resolved r, final String device, final int mtuBytes,
        final int gidIndex)
    {
        final PerfTest.Verb verb = r.test.verb();
        final StringBuilder sb = new StringBuilder();
        sb.append(RESULT_LINE).append('\n');
        sb.append("                    ").append(verb.title()).append(' ');
        if (PerfTest.Verb.ATOMIC == verb)
        {
            sb.append(r.atomicType.name()).append(' ');
        }
        if (r.test.isLatency())
        {
            sb.append("Latency ");
        }
        else
        {
            if (r.duplex)
            {
                sb.append("Bidirectional ");
            }
            sb.append("BW ");
        }
        sb.append("Test\n");
        sb.append(" Dual-port       : OFF\t\tDevice         : ").append(device).append('\n');
        sb.append(" Number of qps   : ").append(r.qps).append("\t\tTransport type : IB\n");
        sb.append(" Connection type : ").append(connectionName(r.connection)).append("\t\tUsing SRQ      : OFF\n");
        // perftest's text where relaxed-ordering support is not compiled in (no PCIe here).
        sb.append(" PCIe relax order: Unsupported\n");
        sb.append(" ibv_wr* API     : OFF\n");
        if (r.client || r.duplex)
        {
            sb.append(" TX depth        : ").append(r.txDepth).append('\n');
        }
        if (PerfTest.Verb.SEND == verb && (!r.client || r.duplex))
        {
            sb.append(" RX depth        : ").append(r.rxDepth).append('\n');
        }
        if (!r.test.isLatency())
        {
            sb.append(" CQ Moderation   : ").append(r.cqMod).append('\n');
        }
        sb.append(" Mtu             : ").append(mtuBytes).append("[B]\n");
        sb.append(" Link type       : Ethernet\n");
        sb.append(" GID index       : ").append(gidIndex).append('\n');
        if (PerfTest.Verb.READ != verb && PerfTest.Verb.ATOMIC != verb)
        {
            sb.append(" Max inline data : 0[B]\n");
        }
        else
        {
            sb.append(" Outstand reads  : ").append(r.outReads).append('\n');
        }
        sb.append(" rdma_cm QPs\t : ").append(r.rdmaCm ? "ON" : "OFF").append('\n');
        sb.append(" Data ex. method : ").append(r.rdmaCm ? "rdma_cm" : "Ethernet");
        if (r.rdmaCm && !r.client)
        {
            // ctx_print_test_info: the -R server's hint (printed after the connection in perftest 4.5 as well).
            sb.append('\n').append(RESULT_LINE).append('\n');
            sb.append(" Waiting for client rdma_cm QP to connect\n");
            sb.append(" Please run the same command with the IB/RoCE interface IP");
        }
        sb.append('\n').append(RESULT_LINE).append('\n');
        return sb.toString();
    }

    /**
     * ctx_print_pingpong_data: one QP's record and, on the next line, its GID.
     *
     * @param side  "local" or "remote".
     * @param verb  the test's verb (READ adds OUT, READ and WRITE add RKey and VAddr).
     * @param dest  the record.
     * @return two lines.
     */
    public static String address(final String side, final PerfTest.Verb verb, final PerftestDest dest)
    {
        final StringBuilder sb = new StringBuilder();
        sb.append(' ').append(side).append(" address: LID ").append(alternateHex(dest.lid(), 4))
            .append(" QPN ").append(alternateHex(dest.qpn(), 6))
            .append(" PSN ").append(alternateHex(dest.psn(), 6));
        if (PerfTest.Verb.READ == verb)
        {
            sb.append(" OUT ").append(alternateHex(dest.outReads(), 4));
        }
        if (PerfTest.Verb.READ == verb || PerfTest.Verb.WRITE == verb)
        {
            sb.append(" RKey ").append(alternateHex(dest.rkey() & 0xFFFF_FFFFL, 8))
                .append(" VAddr ").append(alternateHex(dest.vaddr(), 16));
        }
        sb.append("\n GID: ");
        for (int i = 0; i < 16; i++)
        {
            final long half = i < 8 ? dest.gidHigh() : dest.gidLow();
            sb.append(String.format(Locale.ROOT, "%02d", (half >>> (56 - 8 * (i & 7))) & 0xFF));
            sb.append(i < 15 ? ":" : "\n");
        }
        return sb.toString();
    }

    /**
     * @param gbits true for Gb/s.
     * @return the bandwidth table header.
     */
    public static String bwHeader(final boolean gbits)
    {
        return gbits ? BW_HEADER_GBITS : BW_HEADER;
    }

    /**
     * A bandwidth line as print_full_bw_report prints it (REPORT_FMT, or REPORT_FMT_EXT with 6 decimals when the
     * average is below 0.1 Gb/s).
     *
     * @param report the figures.
     * @param gbits  true when the figures are in Gb/s.
     * @return the line, without newline.
     */
    public static String bwLine(final PerftestReport report, final boolean gbits)
    {
        if (gbits && report.bwAvg() < 0.1)
        {
            return String.format(Locale.ROOT, " %-7d    %d           %-7.6f            %-7.6f            %-7.6f",
                report.size(), report.iterations(), report.bwPeak(), report.bwAvg(), report.msgRate());
        }
        return String.format(Locale.ROOT, " %-7d    %-10d       %-7.2f            %-7.2f\t\t   %-7.6f",
            report.size(), report.iterations(), report.bwPeak(), report.bwAvg(), report.msgRate());
    }

    /**
     * A latency line (REPORT_FMT_LAT).
     *
     * @param lat the figures.
     * @return the line, without newline.
     */
    public static String latLine(final PerfStats.Latency lat)
    {
        return String.format(Locale.ROOT, " %-7d %d          %-7.2f        %-7.2f      %-7.2f  \t       %-7.2f     " +
            "\t%-7.2f\t\t%-7.2f \t\t%-7.2f", lat.size(), lat.iters(), lat.min(), lat.max(), lat.typical(), lat.avg(),
            lat.stdev(), lat.p99(), lat.p999());
    }

    /**
     * A latency line in duration mode (REPORT_FMT_LAT_DUR).
     *
     * @param lat the figures.
     * @return the line, without newline.
     */
    public static String latDurationLine(final PerfStats.LatencyDuration lat)
    {
        return String.format(Locale.ROOT, " %-7d       %d            %-7.2f        %-7.2f", lat.size(), lat.iters(),
            lat.avg(), lat.tps());
    }

    /**
     * @param type QP type.
     * @return perftest's name for it (connStr).
     */
    static String connectionName(final QpType type)
    {
        return type.name();
    }

    /**
     * C's {@code %#0Nx}: {@code 0x} and zero-padded hex within N characters, except that 0 gets no prefix.
     */
    static String alternateHex(final long value, final int width)
    {
        if (0 == value)
        {
            return "0".repeat(width);
        }
        final String digits = Long.toHexString(value);
        final int pad = width - 2 - digits.length();
        return "0x" + (pad > 0 ? "0".repeat(pad) : "") + digits;
    }
}
