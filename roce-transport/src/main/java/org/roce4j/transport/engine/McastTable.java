package org.roce4j.transport.engine;

import org.agrona.collections.Long2ObjectHashMap;
import org.roce4j.ib.QpType;
import org.roce4j.transport.link.Link;
import org.roce4j.wire.addr.Gid;

/**
 * The multicast groups of a device and the UD QPs attached to each (rxe_mcast.c): attach and detach
 * (ibv_attach_mcast / ibv_detach_mcast), and the lookup the receive path makes for every packet to the multicast QPN
 * 0xFFFFFF (rxe_rcv_mcast_pkt). The first attachment to a group asks the link to join it, the last detachment to
 * leave it, as rxe_mcast_add / rxe_mcast_del put the group's MAC on the netdev and take it off.
 *
 * <p>Semantics follow rxe and the uverbs layer: only UD QPs attach (ib_attach_mcast: -EINVAL otherwise), only to a
 * multicast GID (rdma_is_multicast_addr: ff00::/8 or IPv4-mapped 224.0.0.0/4); attaching a QP twice to one group
 * succeeds and changes nothing (rxe_attach_mcg finds the QP on the group's list and returns 0); detaching a QP from
 * a group it is not attached to, or from an unknown group, is -EINVAL (rxe_detach_mcg). A QP with attachments cannot
 * be destroyed (rxe_qp_chk_destroy: -EBUSY).
 *
 * <p>Engine thread only. Attach and detach allocate (control path); {@link #lookup} does not (a primitive-keyed map
 * and a chain per low half).
 */
final class McastTable
{
    /** Most groups a device holds (rxe_param.h RXE_MAX_MCAST_GRP). */
    static final int MAX_GROUPS = 8192;
    /** Most QPs attached to one group (rxe_param.h RXE_MAX_MCAST_QP_ATTACH). */
    static final int MAX_QPS_PER_GROUP = 56;

    /**
     * One group: its GID and the QPs attached to it, in attachment order (rxe_mcg and its qp_list).
     */
    static final class Group
    {
        final long high;
        final long low;
        final QpContext[] qps = new QpContext[MAX_QPS_PER_GROUP];
        int count;
        Group next;

        Group(final long high, final long low)
        {
            this.high = high;
            this.low = low;
        }

        int indexOf(final QpContext qp)
        {
            for (int i = 0; i < count; i++)
            {
                if (qps[i] == qp)
                {
                    return i;
                }
            }
            return -1;
        }
    }

    private final Link link;
    /** Groups by the low half of their GID; groups that share it are chained through {@link Group#next}. */
    private final Long2ObjectHashMap<Group> byLow = new Long2ObjectHashMap<>();
    private int groups;

    /**
     * @param link the link asked to join and leave groups.
     */
    McastTable(final Link link)
    {
        this.link = link;
    }

    /**
     * Attach a QP to a group (rxe_attach_mcast).
     *
     * @param qp   a UD QP.
     * @param high high 64 bits of the group's GID.
     * @param low  low 64 bits.
     * @throws IllegalArgumentException when the QP is not UD or the GID is not a multicast group.
     * @throws IllegalStateException    when the device has {@link #MAX_GROUPS} groups or the group
     *                                  {@link #MAX_QPS_PER_GROUP} QPs (rxe: -ENOMEM), or the link cannot join it.
     */
    void attach(final QpContext qp, final long high, final long low)
    {
        check(qp, high, low, "attach_mcast");
        Group group = lookup(high, low);
        if (null != group && group.indexOf(qp) >= 0)
        {
            return;
        }
        if (null == group)
        {
            if (MAX_GROUPS == groups)
            {
                throw new IllegalStateException("attach_mcast: the device already has " + MAX_GROUPS +
                    " multicast groups (rxe's RXE_MAX_MCAST_GRP)");
            }
            link.joinGroup(high, low);
            group = new Group(high, low);
            group.next = byLow.get(low);
            byLow.put(low, group);
            groups++;
        }
        else if (MAX_QPS_PER_GROUP == group.count)
        {
            throw new IllegalStateException("attach_mcast: group " + format(high, low) + " already has " +
                MAX_QPS_PER_GROUP + " QPs attached (rxe's RXE_MAX_MCAST_QP_ATTACH)");
        }
        group.qps[group.count++] = qp;
        qp.mcastAttachments++;
    }

    /**
     * Detach a QP from a group (rxe_detach_mcast); the last QP to leave removes the group and the link leaves it.
     *
     * @param qp   the QP.
     * @param high high 64 bits of the group's GID.
     * @param low  low 64 bits.
     * @throws IllegalArgumentException when the QP is not UD, the GID is not a multicast group, or the QP is not
     *                                  attached to it (rxe_detach_mcg: -EINVAL).
     */
    void detach(final QpContext qp, final long high, final long low)
    {
        check(qp, high, low, "detach_mcast");
        final Group group = lookup(high, low);
        final int index = null == group ? -1 : group.indexOf(qp);
        if (index < 0)
        {
            throw new IllegalArgumentException("detach_mcast: QP 0x" + Integer.toHexString(qp.qpn) +
                " is not attached to " + format(high, low));
        }
        System.arraycopy(group.qps, index + 1, group.qps, index, group.count - index - 1);
        group.qps[--group.count] = null;
        qp.mcastAttachments--;
        if (0 == group.count)
        {
            remove(group);
            link.leaveGroup(high, low);
        }
    }

    /**
     * @param high high 64 bits of a destination GID (IPv4-mapped for IPv4).
     * @param low  low 64 bits.
     * @return its group, or null when no QP is attached to it (allocation-free).
     */
    Group lookup(final long high, final long low)
    {
        Group group = byLow.get(low);
        while (null != group && group.high != high)
        {
            group = group.next;
        }
        return group;
    }

    /**
     * @return groups with at least one QP attached.
     */
    int groupCount()
    {
        return groups;
    }

    private void remove(final Group group)
    {
        Group head = byLow.get(group.low);
        if (head == group)
        {
            if (null == group.next)
            {
                byLow.remove(group.low);
            }
            else
            {
                byLow.put(group.low, group.next);
            }
        }
        else
        {
            while (head.next != group)
            {
                head = head.next;
            }
            head.next = group.next;
        }
        groups--;
    }

    private static void check(final QpContext qp, final long high, final long low, final String verb)
    {
        if (QpType.UD != qp.type)
        {
            throw new IllegalArgumentException(verb + ": QP 0x" + Integer.toHexString(qp.qpn) + " is " + qp.type +
                "; only UD QPs join multicast groups (ib_attach_mcast: EINVAL)");
        }
        if (!Gid.isMulticastGroup(high, low))
        {
            throw new IllegalArgumentException(verb + ": " + format(high, low) + " is not a multicast GID " +
                "(ff00::/8, or IPv4-mapped 224.0.0.0/4)");
        }
    }

    private static String format(final long high, final long low)
    {
        return Gid.toString(high, low);
    }
}
