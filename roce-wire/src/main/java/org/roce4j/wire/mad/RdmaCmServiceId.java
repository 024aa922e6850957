package org.roce4j.wire.mad;

/**
 * How RDMA CM builds the CM service ID from an IP port (IBA annex A11.2 "IP addressing annex"; rdma_get_service_id()
 * in drivers/infiniband/core/cma.c and RDMA_IB_IP_PS_* in rdma-core librdmacm/rdma_cma.h): {@code (portSpace << 16)
 * | port}, so a listener on TCP port 7471 has service ID 0x0000000001061d2f. The port is the passive side's; the
 * active side's own port travels in the {@link CmaHeader}.
 */
public final class RdmaCmServiceId
{
    /** Port space of RDMA_PS_TCP (reliable connections; rping, ib_write_lat -R). */
    public static final int PS_TCP = 0x0106;
    /** Port space of RDMA_PS_UDP. */
    public static final int PS_UDP = 0x0111;
    /** Port space of RDMA_PS_IB (native IB addressing, no cma_hdr). */
    public static final int PS_IB = 0x013F;
    /** Port space of RDMA_PS_IPOIB. */
    public static final int PS_IPOIB = 0x0002;
    /** Service IDs whose bits 63..24 equal this prefix are RDMA CM IP services (RDMA_IP_CM_SID_PREFIX >> 24). */
    public static final long IP_PREFIX = 0x0000_0000_01L;
    /** Bits of a service ID that name the port space (RDMA_IB_IP_PS_MASK). */
    public static final long PS_MASK = 0xFFFF_FFFF_FFFF_0000L;
    /** Bits of a service ID that hold the port. */
    public static final int PORT_MASK = 0xFFFF;

    private RdmaCmServiceId()
    {
    }

    /**
     * @param portSpace one of the PS_* values.
     * @param port      the passive side's port.
     * @return the service ID.
     */
    public static long serviceId(final int portSpace, final int port)
    {
        return ((long)(portSpace & 0xFFFF) << 16) | (port & PORT_MASK);
    }

    /**
     * @param serviceId from a REQ.
     * @return true when it has the RDMA CM IP prefix.
     */
    public static boolean isRdmaCmIp(final long serviceId)
    {
        return IP_PREFIX == (serviceId >>> 24);
    }

    /**
     * @param serviceId from a REQ.
     * @return its port space (bits 31..16).
     */
    public static int portSpace(final long serviceId)
    {
        return (int)(serviceId >>> 16) & 0xFFFF;
    }

    /**
     * @param serviceId from a REQ.
     * @return its port (bits 15..0).
     */
    public static int port(final long serviceId)
    {
        return (int)serviceId & PORT_MASK;
    }

    /**
     * Describe a service ID, e.g. "RDMA CM TCP port 7471", or null when it is not an RDMA CM IP service. Allocates.
     *
     * @param serviceId from a REQ.
     * @return the description or null.
     */
    public static String describe(final long serviceId)
    {
        if (!isRdmaCmIp(serviceId))
        {
            return null;
        }
        final int portSpace = portSpace(serviceId);
        final String space;
        switch (portSpace)
        {
            case PS_TCP:
                space = "TCP";
                break;
            case PS_UDP:
                space = "UDP";
                break;
            case PS_IB:
                space = "IB";
                break;
            case PS_IPOIB:
                space = "IPoIB";
                break;
            default:
                space = "port space 0x" + Integer.toHexString(portSpace);
                break;
        }
        return "RDMA CM " + space + " port " + port(serviceId);
    }
}
