package org.roce4j.cm.rdmacm;

import java.net.InetAddress;
import java.util.LinkedHashMap;
import java.util.Map;

import org.roce4j.ib.AhAttributes;
import org.roce4j.verbs.QueuePair;
import org.roce4j.verbs.RdmaDevice;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.header.BthHeader;

/**
 * rdma_join_multicast and rdma_leave_multicast of one {@link RdmaCmId} on RoCE, as the kernel's cma.c
 * (cma_iboe_join_multicast) and librdmacm (ucma_process_join) do them together: no SA exchange; the MGID is the group's
 * IP address as a GID (cma_iboe_set_mgid: an IPv4 group IPv4-mapped, {@code ::ffff:a.b.c.d}; an IPv6 group as it
 * is); the MULTICAST_JOIN event carries the address vector to the group (hop limit 64, IPV6_DEFAULT_HOPLIMIT, for
 * RoCEv2), the multicast QPN 0xFFFFFF and the Q_Key {@link UdParam#RDMA_UDP_QKEY}; a full member's QP is attached to
 * the group (ibv_attach_mcast), a send-only full member's is not (ucma_process_join skips the attach). Leaving detaches
 * the QP (ibv_detach_mcast); rdma_destroy_id leaves every group still joined. CM thread only.
 */
final class RdmaCmMulticast
{
    /** IPV6_DEFAULT_HOPLIMIT: the hop limit cma_iboe_join_multicast puts in a RoCEv2 group's record. */
    static final int HOP_LIMIT = 64;

    private final RdmaCmId id;
    /** Groups joined, by MGID, with whether the QP was attached (full member) or not (send-only). */
    private final Map<Gid, Boolean> joined = new LinkedHashMap<>();

    RdmaCmMulticast(final RdmaCmId id)
    {
        this.id = id;
    }

    /**
     * @param group an IP multicast address.
     * @return its MGID (cma_iboe_set_mgid).
     * @throws IllegalArgumentException when the address is not multicast (rdma_join_multicast: EINVAL).
     */
    static Gid mgid(final InetAddress group)
    {
        if (null == group)
        {
            throw new NullPointerException("the multicast address must not be null");
        }
        if (!group.isMulticastAddress())
        {
            throw new IllegalArgumentException(group.getHostAddress() + " is not a multicast address (224.0.0.0/4 " +
                "or ff00::/8): rdma_join_multicast needs a group (EINVAL)");
        }
        return Gid.of(group);
    }

    /**
     * Join a group: attach the QP (unless send-only) and make the MULTICAST_JOIN event.
     *
     * @param group    the group's IP address.
     * @param source   the local address to send from, or null for the device's choice (the route's source).
     * @param sendOnly join as a send-only full member (RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER).
     * @return the event.
     * @throws IllegalArgumentException for a source address the device does not have, or no GID of the group's family.
     * @throws IllegalStateException    when the group is already joined (the kernel's cma: EADDRINUSE), or the QP
     *                                  cannot be attached.
     */
    RdmaCmEvent join(final InetAddress group, final InetAddress source, final boolean sendOnly)
    {
        final Gid mgid = mgid(group);
        if (joined.containsKey(mgid))
        {
            throw new IllegalStateException("rdma_join_multicast: " + group.getHostAddress() + " is already joined " +
                "on this identifier (EADDRINUSE)");
        }
        final RdmaDevice device = id.cm().device();
        final int sgidIndex = sourceGidIndex(device, mgid, source);
        final QueuePair qp = id.qp();
        final boolean attach = null != qp && !sendOnly;
        if (attach)
        {
            qp.attachMcast(mgid);
        }
        joined.put(mgid, attach);
        final AhAttributes ah = new AhAttributes().dgid(mgid.high(), mgid.low()).sgidIndex(sgidIndex)
            .hopLimit(HOP_LIMIT).trafficClass(Math.max(0, id.tos()));
        final UdParam ud = new UdParam(ah, BthHeader.MULTICAST_QPN, UdParam.RDMA_UDP_QKEY);
        return new RdmaCmEvent(RdmaCmEventType.MULTICAST_JOIN, id, null, 0, new byte[0], null,
            "joined " + mgid + (sendOnly ? " as a send-only member" : attach ? ", QP attached" : ", no QP yet"), ud);
    }

    /**
     * Leave a group joined with {@link #join}: detach the QP if it was attached.
     *
     * @param group the group's IP address.
     * @throws IllegalArgumentException when this identifier has not joined the group (rdma_leave_multicast: EADDRNOTAVAIL).
     */
    void leave(final InetAddress group)
    {
        final Gid mgid = mgid(group);
        final Boolean attached = joined.remove(mgid);
        if (null == attached)
        {
            throw new IllegalArgumentException("rdma_leave_multicast: " + group.getHostAddress() + " was not joined " +
                "on this identifier (EADDRNOTAVAIL)");
        }
        detach(mgid, attached);
    }

    /**
     * Leave every group (rdma_destroy_id: cma_leave_mc_groups).
     */
    void leaveAll()
    {
        for (final Map.Entry<Gid, Boolean> entry : joined.entrySet())
        {
            detach(entry.getKey(), entry.getValue());
        }
        joined.clear();
    }

    private void detach(final Gid mgid, final boolean attached)
    {
        final QueuePair qp = id.qp();
        if (attached && null != qp && !qp.isDestroyed())
        {
            qp.detachMcast(mgid);
        }
    }

    private static int sourceGidIndex(final RdmaDevice device, final Gid mgid, final InetAddress source)
    {
        if (null != source)
        {
            final int index = device.gidIndexOf(Gid.of(source));
            if (index < 0)
            {
                throw new IllegalArgumentException("rdma_bind_addr: " + source.getHostAddress() + " is not an " +
                    "address of " + device.name() + " (EADDRNOTAVAIL)");
            }
            return index;
        }
        final int index = device.sourceGidIndex(mgid);
        if (index < 0)
        {
            throw new IllegalArgumentException("rdma_join_multicast: " + device.name() + " has no GID of " + mgid +
                "'s family to send from (EADDRNOTAVAIL)");
        }
        return index;
    }
}
