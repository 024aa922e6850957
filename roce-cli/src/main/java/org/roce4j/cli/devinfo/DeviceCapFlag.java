package org.roce4j.cli.devinfo;

/**
 * The bits of ibv_device_attr.device_cap_flags that ibv_devinfo -v names, in its order (enum ibv_device_cap_flags
 * in libibverbs/verbs.h; print_device_cap_flags in libibverbs/examples/devinfo.c). Any other set bit is printed as
 * {@code Unknown flags: 0x...}.
 */
public enum DeviceCapFlag
{
    /** IBV_DEVICE_RESIZE_MAX_WR. */
    RESIZE_MAX_WR(0),
    /** IBV_DEVICE_BAD_PKEY_CNTR. */
    BAD_PKEY_CNTR(1),
    /** IBV_DEVICE_BAD_QKEY_CNTR. */
    BAD_QKEY_CNTR(2),
    /** IBV_DEVICE_RAW_MULTI. */
    RAW_MULTI(3),
    /** IBV_DEVICE_AUTO_PATH_MIG. */
    AUTO_PATH_MIG(4),
    /** IBV_DEVICE_CHANGE_PHY_PORT. */
    CHANGE_PHY_PORT(5),
    /** IBV_DEVICE_UD_AV_PORT_ENFORCE. */
    UD_AV_PORT_ENFORCE(6),
    /** IBV_DEVICE_CURR_QP_STATE_MOD. */
    CURR_QP_STATE_MOD(7),
    /** IBV_DEVICE_SHUTDOWN_PORT. */
    SHUTDOWN_PORT(8),
    /** IBV_DEVICE_INIT_TYPE. */
    INIT_TYPE(9),
    /** IBV_DEVICE_PORT_ACTIVE_EVENT. */
    PORT_ACTIVE_EVENT(10),
    /** IBV_DEVICE_SYS_IMAGE_GUID. */
    SYS_IMAGE_GUID(11),
    /** IBV_DEVICE_RC_RNR_NAK_GEN. */
    RC_RNR_NAK_GEN(12),
    /** IBV_DEVICE_SRQ_RESIZE. */
    SRQ_RESIZE(13),
    /** IBV_DEVICE_N_NOTIFY_CQ. */
    N_NOTIFY_CQ(14),
    /** IBV_DEVICE_MEM_WINDOW. */
    MEM_WINDOW(17),
    /** IBV_DEVICE_UD_IP_CSUM. */
    UD_IP_CSUM(18),
    /** IBV_DEVICE_XRC. */
    XRC(20),
    /** IBV_DEVICE_MEM_MGT_EXTENSIONS. */
    MEM_MGT_EXTENSIONS(21),
    /** IBV_DEVICE_MEM_WINDOW_TYPE_2A. */
    MEM_WINDOW_TYPE_2A(23),
    /** IBV_DEVICE_MEM_WINDOW_TYPE_2B. */
    MEM_WINDOW_TYPE_2B(24),
    /** IBV_DEVICE_RC_IP_CSUM. */
    RC_IP_CSUM(25),
    /** IBV_DEVICE_RAW_IP_CSUM. */
    RAW_IP_CSUM(26),
    /** IBV_DEVICE_MANAGED_FLOW_STEERING. */
    MANAGED_FLOW_STEERING(29);

    private final int mask;

    DeviceCapFlag(final int bit)
    {
        this.mask = 1 << bit;
    }

    /**
     * @return the flag's bit in device_cap_flags.
     */
    public int mask()
    {
        return mask;
    }

    /**
     * @return every bit devinfo names, or-ed together (the complement of its {@code unknown_flags}).
     */
    public static int knownMask()
    {
        int known = 0;
        for (final DeviceCapFlag flag : values())
        {
            known |= flag.mask;
        }
        return known;
    }
}
