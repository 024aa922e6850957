package org.roce4j.wire.mad;

/**
 * Management classes of the MAD header's MgmtClass byte (IBA 13.4.4 table 118 "Management class values";
 * IB_MGMT_CLASS_* in include/rdma/ib_mad.h). Only {@link #CM} travels between RoCE endpoints in practice; the
 * others are named so a decoder can say what it sees.
 */
public enum ManagementClass
{
    /** 0x01: Subnet Management, LID routed. */
    SUBN_LID_ROUTED(0x01, "SubnMgt (LID routed)"),
    /** 0x03: Subnet Administration. */
    SUBN_ADM(0x03, "SubnAdm"),
    /** 0x04: Performance Management. */
    PERF_MGMT(0x04, "PerfMgt"),
    /** 0x05: Baseboard Management. */
    BM(0x05, "BaseboardMgt"),
    /** 0x06: Device Management. */
    DEVICE_MGMT(0x06, "DevMgt"),
    /** 0x07: Communication Management: the IB CM (REQ/REP/RTU...) that RDMA CM uses on RoCE. */
    CM(0x07, "CM"),
    /** 0x08: SNMP tunneling. */
    SNMP(0x08, "SNMP"),
    /** 0x10: Device Administration. */
    DEVICE_ADM(0x10, "DevAdm"),
    /** 0x11: Boot Management. */
    BOOT_MGMT(0x11, "BootMgt"),
    /** 0x12: BIS. */
    BIS(0x12, "BIS"),
    /** 0x21: Congestion Management. */
    CONG_MGMT(0x21, "CongestionMgt"),
    /** 0x81: Subnet Management, directed route. */
    SUBN_DIRECTED_ROUTE(0x81, "SubnMgt (directed route)");

    /** First code of vendor-specific range 1 (IBA 13.4.4). */
    public static final int VENDOR_RANGE1_START = 0x09;
    /** Last code of vendor-specific range 1. */
    public static final int VENDOR_RANGE1_END = 0x0F;
    /** First code of vendor-specific range 2 (IB_MGMT_CLASS_VENDOR_RANGE2_START). */
    public static final int VENDOR_RANGE2_START = 0x30;
    /** Last code of vendor-specific range 2 (IB_MGMT_CLASS_VENDOR_RANGE2_END). */
    public static final int VENDOR_RANGE2_END = 0x4F;

    private static final ManagementClass[] BY_CODE = new ManagementClass[256];

    static
    {
        for (final ManagementClass mgmtClass : values())
        {
            BY_CODE[mgmtClass.code] = mgmtClass;
        }
    }

    private final int code;
    private final String displayName;

    ManagementClass(final int code, final String displayName)
    {
        this.code = code;
        this.displayName = displayName;
    }

    /**
     * @return the MgmtClass byte.
     */
    public int code()
    {
        return code;
    }

    /**
     * @return short human name.
     */
    public String displayName()
    {
        return displayName;
    }

    /**
     * @param code MgmtClass byte.
     * @return the class, or null for a vendor-specific or reserved code.
     */
    public static ManagementClass of(final int code)
    {
        return BY_CODE[code & 0xFF];
    }

    /**
     * Name any class code, e.g. "CM", "vendor-specific (range 2)", "reserved". Allocates nothing.
     *
     * @param code MgmtClass byte.
     * @return the name.
     */
    public static String describe(final int code)
    {
        final ManagementClass known = of(code);
        if (null != known)
        {
            return known.displayName;
        }
        if (code >= VENDOR_RANGE1_START && code <= VENDOR_RANGE1_END)
        {
            return "vendor-specific (range 1)";
        }
        if (code >= VENDOR_RANGE2_START && code <= VENDOR_RANGE2_END)
        {
            return "vendor-specific (range 2)";
        }
        return "reserved";
    }
}
