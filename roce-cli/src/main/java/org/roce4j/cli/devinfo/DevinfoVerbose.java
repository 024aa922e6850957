package org.roce4j.cli.devinfo;

import java.io.PrintWriter;
import java.util.Locale;

import org.roce4j.verbs.AtomicCapability;
import org.roce4j.verbs.DeviceAttributes;
import org.roce4j.verbs.PortAttributes;

/**
 * The lines ibv_devinfo adds with {@code -v} (print_hca_cap's {@code if (verbose)} blocks, rdma-core
 * libibverbs/examples/devinfo.c), in its order with its tabs. Every attribute of {@link DeviceAttributes} and
 * {@link PortAttributes} is printed from the device; the rest are attributes roce4j does not have, printed as devinfo
 * prints a zero (for max_vl_num, active_width, active_speed and phys_state that is devinfo's "invalid ..." text).
 */
final class DevinfoVerbose
{
    /**
     * device_cap_flags: roce4j's {@link DeviceAttributes} reports no capability flags; the ones printed are the
     * features roce4j implements with rxe's flag: memory windows, types 1 and 2B (rxe RXE_DEVICE_CAP_FLAGS).
     */
    static final int DEVICE_CAP_FLAGS = DeviceCapFlag.MEM_WINDOW.mask() | DeviceCapFlag.MEM_WINDOW_TYPE_2B.mask();

    private DevinfoVerbose()
    {
    }

    /**
     * The device block's verbose lines, from max_mr_size to num_comp_vectors, then roce4j's max_inline_data.
     *
     * @param out  where they go.
     * @param attr the device's attributes.
     */
    static void printDevice(final PrintWriter out, final DeviceAttributes attr)
    {
        out.println("\tmax_mr_size:\t\t\t0x" + Long.toHexString(attr.maxMrSize()));
        out.println("\tpage_size_cap:\t\t\t0x0");
        out.println("\tmax_qp:\t\t\t\t" + attr.maxQp());
        out.println("\tmax_qp_wr:\t\t\t" + attr.maxQpWr());
        out.println("\tdevice_cap_flags:\t\t" + String.format(Locale.ROOT, "0x%08x", DEVICE_CAP_FLAGS));
        printDeviceCapFlags(out, DEVICE_CAP_FLAGS);
        out.println("\tmax_sge:\t\t\t" + attr.maxSge());
        out.println("\tmax_sge_rd:\t\t\t" + attr.maxSgeRd());
        out.println("\tmax_cq:\t\t\t\t" + attr.maxCq());
        out.println("\tmax_cqe:\t\t\t" + attr.maxCqe());
        out.println("\tmax_mr:\t\t\t\t" + attr.maxMr());
        out.println("\tmax_pd:\t\t\t\t" + attr.maxPd());
        out.println("\tmax_qp_rd_atom:\t\t\t" + attr.maxQpRdAtom());
        out.println("\tmax_ee_rd_atom:\t\t\t0");
        out.println("\tmax_res_rd_atom:\t\t" + attr.maxResRdAtom());
        out.println("\tmax_qp_init_rd_atom:\t\t" + attr.maxQpInitRdAtom());
        out.println("\tmax_ee_init_rd_atom:\t\t0");
        out.println("\tatomic_cap:\t\t\t" + atomicCap(attr.atomicCap()));
        out.println("\tmax_ee:\t\t\t\t0");
        out.println("\tmax_rdd:\t\t\t0");
        out.println("\tmax_mw:\t\t\t\t" + DeviceAttributes.MAX_MW);
        out.println("\tmax_raw_ipv6_qp:\t\t0");
        out.println("\tmax_raw_ethy_qp:\t\t0");
        out.println("\tmax_mcast_grp:\t\t\t0");
        out.println("\tmax_mcast_qp_attach:\t\t0");
        out.println("\tmax_total_mcast_qp_attach:\t0");
        out.println("\tmax_ah:\t\t\t\t" + attr.maxAh());
        out.println("\tmax_fmr:\t\t\t0");
        out.println("\tmax_srq:\t\t\t" + attr.maxSrq());
        if (0 != attr.maxSrq())
        {
            out.println("\tmax_srq_wr:\t\t\t" + attr.maxSrqWr());
            out.println("\tmax_srq_sge:\t\t\t" + attr.maxSrqSge());
        }
        out.println("\tmax_pkeys:\t\t\t" + attr.maxPkeys());
        out.println("\tlocal_ca_ack_delay:\t\t" + attr.localCaAckDelay());
        printOdpCaps(out);
        out.println("\tcompletion_timestamp_mask not supported");
        out.println("\tcore clock not supported");
        out.println("\tdevice_cap_flags_ex:\t\t0x0");
        out.println("\ttso_caps:");
        out.println("\t\tmax_tso:\t\t\t0");
        out.println("\trss_caps:");
        out.println("\t\tmax_rwq_indirection_tables:\t\t\t0");
        out.println("\t\tmax_rwq_indirection_table_size:\t\t\t0");
        out.println("\t\trx_hash_function:\t\t\t\t0x0");
        out.println("\t\trx_hash_fields_mask:\t\t\t\t0x0");
        out.println("\tmax_wq_type_rq:\t\t\t0");
        out.println("\tpacket_pacing_caps:");
        out.println("\t\tqp_rate_limit_min:\t0kbps");
        out.println("\t\tqp_rate_limit_max:\t0kbps");
        out.println("\ttag matching not supported");
        out.println("\tnum_comp_vectors:\t\t0");
        out.println("\tmax_inline_data:\t\t" + attr.maxInlineData());
    }

    /**
     * A port's verbose lines, from max_msg_sz to phys_state (devinfo prints phys_state for the IB transport, which
     * RoCE devices report). effective_speed is left out: devinfo prints it only when ibv_query_port_speed succeeds.
     *
     * @param out      where they go.
     * @param portAttr the port's attributes.
     */
    static void printPort(final PrintWriter out, final PortAttributes portAttr)
    {
        out.println("\t\t\tmax_msg_sz:\t\t0x" + Long.toHexString(portAttr.maxMsgSz()));
        out.println("\t\t\tport_cap_flags:\t\t" + String.format(Locale.ROOT, "0x%08x", portAttr.portCapFlags()));
        out.println("\t\t\tport_cap_flags2:\t0x0000");
        out.println("\t\t\tmax_vl_num:\t\tinvalid value (0)");
        out.println("\t\t\tbad_pkey_cntr:\t\t0x0");
        out.println("\t\t\tqkey_viol_cntr:\t\t0x0");
        out.println("\t\t\tsm_sl:\t\t\t0");
        out.println("\t\t\tpkey_tbl_len:\t\t" + portAttr.pkeyTblLen());
        out.println("\t\t\tgid_tbl_len:\t\t" + portAttr.gidTblLen());
        out.println("\t\t\tsubnet_timeout:\t\t0");
        out.println("\t\t\tinit_type_reply:\t0");
        out.println("\t\t\tactive_width:\t\tinvalid widthX (0)");
        out.println("\t\t\tactive_speed:\t\tinvalid speed (0)");
        out.println("\t\t\tphys_state:\t\tinvalid physical state (0)");
    }

    /**
     * devinfo's print_device_cap_flags: one line per named flag that is set, then the unknown bits.
     *
     * @param out   where they go.
     * @param flags device_cap_flags.
     */
    static void printDeviceCapFlags(final PrintWriter out, final int flags)
    {
        for (final DeviceCapFlag flag : DeviceCapFlag.values())
        {
            if (0 != (flags & flag.mask()))
            {
                out.println("\t\t\t\t\t" + flag.name());
            }
        }
        final int unknown = flags & ~DeviceCapFlag.knownMask();
        if (0 != unknown)
        {
            out.println("\t\t\t\t\tUnknown flags: 0x" + Integer.toHexString(unknown).toUpperCase(Locale.ROOT));
        }
    }

    /** devinfo's atomic_cap_str and the enum value: {@code ATOMIC_HCA (1)}. */
    static String atomicCap(final AtomicCapability cap)
    {
        return "ATOMIC_" + cap.name() + " (" + cap.ordinal() + ")";
    }

    /** print_odp_caps for a device without on-demand paging: no general flag, NO SUPPORT for every transport. */
    private static void printOdpCaps(final PrintWriter out)
    {
        out.println("\tgeneral_odp_caps:");
        for (final String transport : new String[] {"rc", "uc", "ud", "xrc"})
        {
            out.println("\t" + transport + "_odp_caps:");
            out.println("\t\t\t\t\tNO SUPPORT");
        }
    }
}
