package org.roce4j.cli.devinfo;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.roce4j.ib.Mtu;
import org.roce4j.verbs.AtomicCapability;
import org.roce4j.verbs.PortState;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * devinfo.c's value formats and its device_cap_flags table, checked whole against libibverbs/verbs.h.
 */
class DevinfoFormatTest
{
    @Test
    void theCapabilityTableIsVerbsHsEnumInDevinfosOrder()
    {
        final Map<String, Integer> verbsH = new LinkedHashMap<>();
        verbsH.put("RESIZE_MAX_WR", 1);
        verbsH.put("BAD_PKEY_CNTR", 1 << 1);
        verbsH.put("BAD_QKEY_CNTR", 1 << 2);
        verbsH.put("RAW_MULTI", 1 << 3);
        verbsH.put("AUTO_PATH_MIG", 1 << 4);
        verbsH.put("CHANGE_PHY_PORT", 1 << 5);
        verbsH.put("UD_AV_PORT_ENFORCE", 1 << 6);
        verbsH.put("CURR_QP_STATE_MOD", 1 << 7);
        verbsH.put("SHUTDOWN_PORT", 1 << 8);
        verbsH.put("INIT_TYPE", 1 << 9);
        verbsH.put("PORT_ACTIVE_EVENT", 1 << 10);
        verbsH.put("SYS_IMAGE_GUID", 1 << 11);
        verbsH.put("RC_RNR_NAK_GEN", 1 << 12);
        verbsH.put("SRQ_RESIZE", 1 << 13);
        verbsH.put("N_NOTIFY_CQ", 1 << 14);
        verbsH.put("MEM_WINDOW", 1 << 17);
        verbsH.put("UD_IP_CSUM", 1 << 18);
        verbsH.put("XRC", 1 << 20);
        verbsH.put("MEM_MGT_EXTENSIONS", 1 << 21);
        verbsH.put("MEM_WINDOW_TYPE_2A", 1 << 23);
        verbsH.put("MEM_WINDOW_TYPE_2B", 1 << 24);
        verbsH.put("RC_IP_CSUM", 1 << 25);
        verbsH.put("RAW_IP_CSUM", 1 << 26);
        verbsH.put("MANAGED_FLOW_STEERING", 1 << 29);
        final Map<String, Integer> table = new LinkedHashMap<>();
        for (final DeviceCapFlag flag : DeviceCapFlag.values())
        {
            table.put(flag.name(), flag.mask());
        }
        assertEquals(verbsH, table);
        assertEquals(0x27B6_7FFF, DeviceCapFlag.knownMask());
    }

    @Test
    void setFlagsPrintByNameAndTheRestAsUnknownFlags()
    {
        final StringWriter text = new StringWriter();
        // rxe's flags on Linux 6.1 (RXE_DEVICE_CAP_FLAGS without the kernel-only bits), plus bits 15 and 31.
        DevinfoVerbose.printDeviceCapFlags(new PrintWriter(text, true), (1 << 1) | (1 << 2) | (1 << 12) | (1 << 21) |
            (1 << 24) | (1 << 15) | (1 << 31));
        assertEquals("\t\t\t\t\tBAD_PKEY_CNTR\n\t\t\t\t\tBAD_QKEY_CNTR\n\t\t\t\t\tRC_RNR_NAK_GEN\n" +
            "\t\t\t\t\tMEM_MGT_EXTENSIONS\n\t\t\t\t\tMEM_WINDOW_TYPE_2B\n\t\t\t\t\tUnknown flags: 0x80008000\n",
            text.toString());
        final StringWriter none = new StringWriter();
        DevinfoVerbose.printDeviceCapFlags(new PrintWriter(none, true), 0);
        assertEquals("", none.toString());
    }

    @Test
    void valuesPrintInDevinfosFormats()
    {
        assertEquals("0002:c9ff:fe00:1234", Devinfo.guid(0x0002_C9FF_FE00_1234L));
        assertEquals("ffff:0000:0000:0001", Devinfo.guid(0xFFFF_0000_0000_0001L));
        assertEquals("256 (1)", Devinfo.mtu(Mtu.MTU_256));
        assertEquals("4096 (5)", Devinfo.mtu(Mtu.MTU_4096));
        assertEquals("PORT_DOWN", Devinfo.portState(PortState.DOWN));
        assertEquals("PORT_ACTIVE", Devinfo.portState(PortState.ACTIVE));
        assertEquals("invalid state", Devinfo.portState(PortState.NOP));
        assertEquals("invalid state", Devinfo.portState(PortState.ACTIVE_DEFER));
        assertEquals("ATOMIC_NONE (0)", DevinfoVerbose.atomicCap(AtomicCapability.NONE));
        assertEquals("ATOMIC_HCA (1)", DevinfoVerbose.atomicCap(AtomicCapability.HCA));
        assertEquals("ATOMIC_GLOB (2)", DevinfoVerbose.atomicCap(AtomicCapability.GLOB));
        assertEquals("Unspecified", Devinfo.linkLayer(0));
        assertEquals("InfiniBand", Devinfo.linkLayer(1));
        assertEquals("Ethernet", Devinfo.linkLayer(2));
        assertEquals("Unknown", Devinfo.linkLayer(3));
    }
}
