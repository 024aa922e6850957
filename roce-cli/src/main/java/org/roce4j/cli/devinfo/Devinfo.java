package org.roce4j.cli.devinfo;

import java.io.PrintWriter;
import java.util.Locale;

import org.roce4j.ib.Mtu;
import org.roce4j.wire.addr.Gid;
import org.roce4j.verbs.DeviceAttributes;
import org.roce4j.verbs.PortAttributes;
import org.roce4j.verbs.PortState;
import org.roce4j.verbs.RdmaDevice;

/**
 * ibv_devinfo's print_hca_cap (rdma-core libibverbs/examples/devinfo.c) for a roce4j device: the same lines, field
 * names, tabs and value formats. A value roce4j does not have (sys_image_guid, vendor_part_id, hw_ver, max_ee,
 * active_width, ...) is printed as devinfo prints a zero there; lines devinfo prints only when a verb succeeds
 * (board_id from sysfs, max_comp_cntr, effective_speed) or a capability is non-zero (raw packet caps, cq moderation,
 * device memory) are left out, as devinfo leaves them out for a device without them. With {@code -v} two roce4j
 * additions follow devinfo's: {@code max_inline_data} at the end of the device block (libibverbs reports it per QP)
 * and, after the ports, a {@code counters:} section with every counter of {@link RdmaDevice#counters()}.
 */
public final class Devinfo
{
    /** What print_hca_cap returns for a port the device does not have ("rc = 3 is taken by failure to clean up"). */
    public static final int EXIT_INVALID_PORT = 4;
    /** IBV_TRANSPORT_IB: what rxe's devices report (RoCE is the IB transport over Ethernet). */
    static final int TRANSPORT_IB = 0;
    /** Every roce4j GID is a RoCE v2 GID (IBV_GID_TYPE_SYSFS_ROCE_V2): roce4j speaks RoCEv2 only. */
    static final String GID_TYPE = "RoCE v2";
    /** The counters' values start at least where devinfo's port fields start theirs: column 48 (6 tabs of 8). */
    private static final int MIN_COUNTER_VALUE_COLUMN = 48;
    private static final int TAB = 8;

    private final PrintWriter out;
    private final PrintWriter err;
    private final boolean verbose;

    /**
     * @param out     where devinfo's lines go.
     * @param err     where its error lines go.
     * @param verbose {@code -v}: every attribute, the GID table and the counters.
     */
    public Devinfo(final PrintWriter out, final PrintWriter err, final boolean verbose)
    {
        this.out = out;
        this.err = err;
        this.verbose = verbose;
    }

    /**
     * Print one device as print_hca_cap does.
     *
     * @param device the open device.
     * @param ibPort the port to show (devinfo's -i), or 0 for every port.
     * @return 0, or {@link #EXIT_INVALID_PORT} for a port the device does not have (nothing printed on stdout).
     */
    public int printHcaCap(final RdmaDevice device, final int ibPort)
    {
        final DeviceAttributes attr = device.queryDevice();
        if (0 != ibPort && ibPort > attr.physPortCnt())
        {
            err.println("Invalid port requested for device");
            err.flush();
            return EXIT_INVALID_PORT;
        }
        out.println("hca_id:\t" + device.name());
        out.println("\ttransport:\t\t\tInfiniBand (" + TRANSPORT_IB + ")");
        if (!attr.fwVer().isEmpty())
        {
            out.println("\tfw_ver:\t\t\t\t" + attr.fwVer());
        }
        out.println("\tnode_guid:\t\t\t" + guid(attr.nodeGuid()));
        out.println("\tsys_image_guid:\t\t\t" + guid(0));
        out.println("\tvendor_id:\t\t\t" + String.format(Locale.ROOT, "0x%04x", attr.vendorId()));
        out.println("\tvendor_part_id:\t\t\t0");
        out.println("\thw_ver:\t\t\t\t0x0");
        out.println("\tphys_port_cnt:\t\t\t" + attr.physPortCnt());
        if (verbose)
        {
            DevinfoVerbose.printDevice(out, attr);
        }
        for (int port = 1; port <= attr.physPortCnt(); port++)
        {
            if (0 != ibPort && port != ibPort)
            {
                continue;
            }
            printPort(device, port);
        }
        if (verbose)
        {
            printCounters(device);
        }
        out.flush();
        return 0;
    }

    private void printPort(final RdmaDevice device, final int port)
    {
        final PortAttributes portAttr = device.queryPort(port);
        out.println("\t\tport:\t" + port);
        out.println("\t\t\tstate:\t\t\t" + portState(portAttr.state()) + " (" + portAttr.state().ordinal() + ")");
        out.println("\t\t\tmax_mtu:\t\t" + mtu(portAttr.maxMtu()));
        out.println("\t\t\tactive_mtu:\t\t" + mtu(portAttr.activeMtu()));
        out.println("\t\t\tsm_lid:\t\t\t" + portAttr.smLid());
        out.println("\t\t\tport_lid:\t\t" + portAttr.lid());
        out.println("\t\t\tport_lmc:\t\t0x00");
        out.println("\t\t\tlink_layer:\t\t" + linkLayer(portAttr.linkLayer()));
        if (verbose)
        {
            DevinfoVerbose.printPort(out, portAttr);
            printGids(device, portAttr);
        }
        out.println();
    }

    /** print_all_port_gids: every GID of the table but the null ones (bytes 8..15 zero: devinfo's null_gid). */
    private void printGids(final RdmaDevice device, final PortAttributes portAttr)
    {
        for (int i = 0; i < portAttr.gidTblLen(); i++)
        {
            final Gid gid = device.queryGid(i);
            if (0 != gid.low())
            {
                out.println(String.format(Locale.ROOT, "\t\t\tGID[%3d]:\t\t%s, %s", i, gid, GID_TYPE));
            }
        }
    }

    /**
     * roce4j's addition: every counter, zeros included, in devinfo's indentation, the values in one column: the
     * port fields' column 48, or the first tab stop after the longest name.
     */
    private void printCounters(final RdmaDevice device)
    {
        out.println("\tcounters:");
        final int[] longest = new int[1];
        device.counters().forEach((name, value) -> longest[0] = Math.max(longest[0], name.length()));
        final int valueColumn = Math.max(MIN_COUNTER_VALUE_COLUMN, nextTabStop(2 * TAB + longest[0] + 1));
        final StringBuilder line = new StringBuilder();
        device.counters().forEach((name, value) ->
        {
            line.setLength(0);
            line.append("\t\t").append(name).append(':');
            for (int column = 2 * TAB + name.length() + 1; column < valueColumn; column = nextTabStop(column))
            {
                line.append('\t');
            }
            out.println(line.append(value));
        });
    }

    private static int nextTabStop(final int column)
    {
        return (column / TAB + 1) * TAB;
    }

    /**
     * @param guid a GUID in host order.
     * @return devinfo's guid_str: four groups of four hex digits.
     */
    static String guid(final long guid)
    {
        return String.format(Locale.ROOT, "%04x:%04x:%04x:%04x", (guid >>> 48) & 0xFFFF, (guid >>> 32) & 0xFFFF,
            (guid >>> 16) & 0xFFFF, guid & 0xFFFF);
    }

    /** devinfo's port_state_str. */
    static String portState(final PortState state)
    {
        return switch (state)
        {
            case DOWN -> "PORT_DOWN";
            case INIT -> "PORT_INIT";
            case ARMED -> "PORT_ARMED";
            case ACTIVE -> "PORT_ACTIVE";
            default -> "invalid state";
        };
    }

    /** devinfo's mtu_str and the enum value: {@code 4096 (5)}. */
    static String mtu(final Mtu mtu)
    {
        return mtu.bytes() + " (" + mtu.verbsValue() + ")";
    }

    /** devinfo's link_layer_str (IBV_LINK_LAYER_UNSPECIFIED 0, INFINIBAND 1, ETHERNET 2). */
    static String linkLayer(final int linkLayer)
    {
        return switch (linkLayer)
        {
            case 0 -> "Unspecified";
            case 1 -> "InfiniBand";
            case PortAttributes.LINK_LAYER_ETHERNET -> "Ethernet";
            default -> "Unknown";
        };
    }
}
