package org.roce4j.cli;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.roce4j.wire.addr.Gid;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.link.memory.MemoryFabric;
import org.roce4j.verbs.DeviceOptions;
import org.roce4j.verbs.ProgressGroup;
import org.roce4j.verbs.RdmaDevice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code roce devinfo}: ibv_devinfo's lines, tabs and exit codes (rdma-core libibverbs/examples/devinfo.c) for the
 * device on the default memory link, whose address is fixed (MAC 02:00:00:00:00:01, 192.168.77.1, IP MTU 1500).
 * The GID lines are checked against the device's own GID table (RdmaDevice.queryGid), so they follow how the table
 * is built.
 */
class DevinfoCommandTest
{
    private static final String NAME = "roce4j_memory:" + DevinfoCommand.MEMORY_IP;

    /** print_hca_cap without -v: the device block, then the port block and its blank line. */
    private static final List<String> PLAIN = List.of(
        "hca_id:\t" + NAME,
        "\ttransport:\t\t\tInfiniBand (0)",
        "\tfw_ver:\t\t\t\troce4j-0.1",
        "\tnode_guid:\t\t\t0000:00ff:fe00:0001",          // the EUI-64 of 02:00:00:00:00:01, U/L bit flipped
        "\tsys_image_guid:\t\t\t0000:0000:0000:0000",
        "\tvendor_id:\t\t\t0xffffff",
        "\tvendor_part_id:\t\t\t0",
        "\thw_ver:\t\t\t\t0x0",
        "\tphys_port_cnt:\t\t\t1",
        "\t\tport:\t1",
        "\t\t\tstate:\t\t\tPORT_ACTIVE (4)",
        "\t\t\tmax_mtu:\t\t4096 (5)",
        "\t\t\tactive_mtu:\t\t1024 (3)",
        "\t\t\tsm_lid:\t\t\t0",
        "\t\t\tport_lid:\t\t0",
        "\t\t\tport_lmc:\t\t0x00",
        "\t\t\tlink_layer:\t\tEthernet",
        "");

    @Test
    void theMemoryLinkDevicePrintsAsDevinfoPrintsOne()
    {
        final Cli.Result result = Cli.run("devinfo");
        assertEquals(0, result.exitCode(), result.err());
        assertEquals(PLAIN, result.outLines());
        assertEquals("roce devinfo: --link memory opens one port (192.168.77.1) of an in-process fabric; for a " +
            "device on a network give --link udp:IP (or tunnel:, pcap:)", result.err().strip());
        assertEquals(PLAIN, Cli.run("devinfo", "-i", "1").outLines());
        assertEquals(PLAIN, Cli.run("devinfo", "--ib-port=0x1", "-d", NAME).outLines());
    }

    @Test
    void verbosePrintsEveryAttributeTheGidTableAndTheCounters()
    {
        final Cli.Result result = Cli.run("devinfo", "-v");
        assertEquals(0, result.exitCode(), result.err());
        final List<String> lines = result.outLines();
        assertEquals(PLAIN.subList(0, 9), lines.subList(0, 9));
        assertEquals(List.of(
            "\tmax_mr_size:\t\t\t0x7fffffff",
            "\tpage_size_cap:\t\t\t0x0",
            "\tmax_qp:\t\t\t\t1048560",
            "\tmax_qp_wr:\t\t\t32768",
            "\tdevice_cap_flags:\t\t0x01020000",
            "\t\t\t\t\tMEM_WINDOW",
            "\t\t\t\t\tMEM_WINDOW_TYPE_2B",
            "\tmax_sge:\t\t\t32",
            "\tmax_sge_rd:\t\t\t32",
            "\tmax_cq:\t\t\t\t1048576",
            "\tmax_cqe:\t\t\t32767",
            "\tmax_mr:\t\t\t\t524287",
            "\tmax_pd:\t\t\t\t1048576",
            "\tmax_qp_rd_atom:\t\t\t128",
            "\tmax_ee_rd_atom:\t\t\t0",
            "\tmax_res_rd_atom:\t\t258048",
            "\tmax_qp_init_rd_atom:\t\t128",
            "\tmax_ee_init_rd_atom:\t\t0",
            "\tatomic_cap:\t\t\tATOMIC_HCA (1)"), lines.subList(9, 28));
        assertTrue(lines.contains("\tmax_mw:\t\t\t\t524287"), String.join("\n", lines));
        final int srq = lines.indexOf("\tmax_srq:\t\t\t917503");
        assertEquals(List.of("\tmax_srq_wr:\t\t\t32768", "\tmax_srq_sge:\t\t\t27", "\tmax_pkeys:\t\t\t1",
            "\tlocal_ca_ack_delay:\t\t15", "\tgeneral_odp_caps:", "\trc_odp_caps:", "\t\t\t\t\tNO SUPPORT"),
            lines.subList(srq + 1, srq + 8));
        final int port = lines.indexOf("\t\tport:\t1");
        assertEquals(List.of("\tnum_comp_vectors:\t\t0", "\tmax_inline_data:\t\t512"), lines.subList(port - 2, port));
        assertEquals(PLAIN.subList(9, 17), lines.subList(port, port + 8));
        assertEquals(List.of(
            "\t\t\tmax_msg_sz:\t\t0x80000000",
            "\t\t\tport_cap_flags:\t\t0x00010000",
            "\t\t\tport_cap_flags2:\t0x0000",
            "\t\t\tmax_vl_num:\t\tinvalid value (0)",
            "\t\t\tbad_pkey_cntr:\t\t0x0",
            "\t\t\tqkey_viol_cntr:\t\t0x0",
            "\t\t\tsm_sl:\t\t\t0",
            "\t\t\tpkey_tbl_len:\t\t1"), lines.subList(port + 8, port + 16));
        final List<String> expectedGids = new ArrayList<>();
        final int gidTblLen;
        try (MemoryFabric fabric = new MemoryFabric();
            RdmaDevice device = sameDevice(fabric))
        {
            gidTblLen = device.queryPort().gidTblLen();
            for (int i = 0; i < gidTblLen; i++)
            {
                final Gid gid = device.queryGid(i);
                if (0 != gid.low())
                {
                    expectedGids.add(String.format("\t\t\tGID[%3d]:\t\t%s, RoCE v2", i, gid));
                }
            }
            // The two GIDs every roce4j device has, as inet_ntop writes them.
            final int linkLocal = device.findGidIndex(0xFE80_0000_0000_0000L, 0x0000_00FF_FE00_0001L);
            final int mapped = device.findGidIndex(0, 0x0000_FFFF_C0A8_4D01L);
            assertTrue(expectedGids.contains(String.format("\t\t\tGID[%3d]:\t\tfe80::ff:fe00:1, RoCE v2", linkLocal)));
            assertTrue(expectedGids.contains(String.format("\t\t\tGID[%3d]:\t\t::ffff:192.168.77.1, RoCE v2",
                mapped)));
        }
        assertEquals(List.of(
            "\t\t\tgid_tbl_len:\t\t" + gidTblLen,
            "\t\t\tsubnet_timeout:\t\t0",
            "\t\t\tinit_type_reply:\t0",
            "\t\t\tactive_width:\t\tinvalid widthX (0)",
            "\t\t\tactive_speed:\t\tinvalid speed (0)",
            "\t\t\tphys_state:\t\tinvalid physical state (0)"), lines.subList(port + 16, port + 22));
        final int gids = port + 22;
        assertEquals(expectedGids, lines.subList(gids, gids + expectedGids.size()));
        assertEquals(List.of("", "\tcounters:"), lines.subList(gids + expectedGids.size(), gids + expectedGids.size() +
            2));
        assertCounters(lines.subList(gids + expectedGids.size() + 2, lines.size()));
    }

    /** Every counter of the device, zeros included (nothing was sent), values from column 48 as the port fields. */
    private static void assertCounters(final List<String> counterLines)
    {
        final List<String> names = new ArrayList<>();
        try (MemoryFabric fabric = new MemoryFabric();
            RdmaDevice device = sameDevice(fabric))
        {
            device.counters().forEach((name, value) -> names.add(name));
        }
        assertEquals(names.size(), counterLines.size(), String.join("\n", counterLines));
        assertTrue(names.contains("transport.ghost_responses"), names.toString());
        final int longest = names.stream().mapToInt(String::length).max().orElseThrow();
        final int valueColumn = Math.max(48, ((16 + longest + 1) / 8 + 1) * 8);
        for (int i = 0; i < names.size(); i++)
        {
            final String line = counterLines.get(i);
            assertTrue(line.matches("\t\t" + names.get(i).replace(".", "\\.") + ":\t+0"), line);
            assertEquals(valueColumn, expandTabs(line.substring(0, line.length() - 1)).length(), line);
        }
    }

    /** A device like the one devinfo opens on --link memory: same address and MTU, on a fabric of its own. */
    private static RdmaDevice sameDevice(final MemoryFabric fabric)
    {
        return RdmaDevice.open(fabric.attach(LinkAddress.of(DevinfoCommand.MEMORY_MAC, DevinfoCommand.MEMORY_IP),
            DevinfoCommand.MEMORY_MTU), DeviceOptions.invoker().progressGroup(new ProgressGroup()));
    }

    private static String expandTabs(final String text)
    {
        final StringBuilder sb = new StringBuilder();
        for (final char c : text.toCharArray())
        {
            if ('\t' == c)
            {
                do
                {
                    sb.append(' ');
                }
                while (0 != sb.length() % 8);
            }
            else
            {
                sb.append(c);
            }
        }
        return sb.toString();
    }

    @Test
    void listPrintsTheOneDevice()
    {
        final Cli.Result result = Cli.run("devinfo", "-l");
        assertEquals(0, result.exitCode(), result.err());
        assertEquals("1 HCA found:\n\t" + NAME + "\n\n", result.out());
        assertEquals(result.out(), Cli.run("devinfo", "--list").out());
    }

    @Test
    void aPortTheDeviceDoesNotHaveEndsAsInDevinfo()
    {
        final Cli.Result result = Cli.run("devinfo", "-i", "2");
        assertEquals(4, result.exitCode());
        assertEquals("", result.out(), "print_hca_cap checks the port before its first line");
        assertTrue(result.err().endsWith("Invalid port requested for device\n"), result.err());
        assertEquals(4, Cli.run("devinfo", "--ib-port", "2", "-v").exitCode());
    }

    @Test
    void aPortThatIsNoPositiveNumberPrintsTheUsageAndExits1()
    {
        for (final String port : List.of("0", "-1", "abc"))
        {
            final Cli.Result result = Cli.run("devinfo", "-i", port);
            assertEquals(DevinfoCommand.EXIT_FAILURE, result.exitCode(), port);
            assertTrue(result.out().startsWith("Usage: roce devinfo             print the ca attributes\n\nOptions:\n" +
                "  -d, --ib-dev=<dev>     use IB device <dev> (default all devices)\n"), result.out());
            assertTrue(result.out().contains("  --link=SPEC            roce4j: " + LinkOption.DESCRIPTION), port);
        }
    }

    @Test
    void anotherDeviceNameIsNotFound()
    {
        final Cli.Result result = Cli.run("devinfo", "-d", "rxe0");
        assertEquals(255, result.exitCode());
        assertEquals("", result.out());
        assertTrue(result.err().endsWith("IB device 'rxe0' wasn't found\n"), result.err());
    }

    @Test
    void aBadLinkOrOptionIsDevinfosMinusOneAndALinkThatCannotOpenIsFailedToOpenDevice() throws IOException
    {
        final Cli.Result unknown = Cli.run("devinfo", "--link", "bogus:1");
        assertEquals(255, unknown.exitCode());
        assertEquals("", unknown.out());
        assertTrue(unknown.err().startsWith("roce devinfo: unknown link spec 'bogus:1'"), unknown.err());

        final Cli.Result memoryPort = Cli.run("devinfo", "--link", "memory:10.0.0.1");
        assertEquals(255, memoryPort.exitCode());
        assertTrue(memoryPort.err().startsWith("roce devinfo: --link memory:10.0.0.1: a memory:IP port"),
            memoryPort.err());

        assertEquals(255, Cli.run("devinfo", "-x").exitCode(), "getopt's unknown option");

        try (DatagramSocket taken = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0)))
        {
            final String spec = "udp:127.0.0.1,port=" + taken.getLocalPort();
            final Cli.Result inUse = Cli.run("devinfo", "--link", spec);
            assertEquals(DevinfoCommand.EXIT_FAILURE, inUse.exitCode(), inUse.err());
            assertEquals("", inUse.out());
            assertTrue(inUse.err().startsWith("Failed to open device: "), inUse.err());

            final Cli.Result list = Cli.run("devinfo", "-l", "--link", spec);
            assertEquals(255, list.exitCode(), list.err());
            assertTrue(list.err().startsWith("Failed to get IB devices list: "), list.err());
        }
    }

    @Test
    void theHelpNamesDevinfosOptionsRoce4jsAdditionsAndTheExitCodes()
    {
        final Cli.Result result = Cli.run("devinfo", "--help");
        assertEquals(0, result.exitCode());
        final String flat = result.out().replaceAll("\\s+", " ");
        for (final String expected : List.of("-d, --ib-dev=<dev>", "-i, --ib-port=<port>", "-l, --list",
            "-v, --verbose", "--link=SPEC", "like rdma-core's ibv_devinfo", "roce4j's additions under -v: " +
            "max_inline_data", "a final counters: section with every counter of the device", "Exit codes as " +
            "ibv_devinfo: 0; 1 -i not a positive number, or the device cannot open; 4 no such port; 255"))
        {
            assertTrue(flat.contains(expected), expected + " in:\n" + result.out());
        }
    }
}
