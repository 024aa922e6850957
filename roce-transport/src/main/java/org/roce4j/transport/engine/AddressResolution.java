package org.roce4j.transport.engine;

import org.roce4j.ib.AhAttributes;
import org.roce4j.transport.link.Link;

/**
 * Address vectors from address-handle attributes (rxe_av.c: rxe_av_from_attr, rxe_av_fill_ip_info): the source
 * address comes from the {@link GidTable} entry the attributes name, the destination from their GID, and the layer-2
 * address is left to the link, whose neighbour resolution is started as the kernel starts it when an AH is created or
 * a connected QP gets its path. Also the UDP source port of a connected QP's flow (ib_verbs.h rdma_get_udp_sport).
 */
final class AddressResolution
{
    /** Mask of the 20-bit IPv6 flow label. */
    private static final int FLOW_LABEL_MASK = 0xF_FFFF;
    /** The low 14 bits of the folded flow label pick the port in the dynamic range. */
    private static final int PORT_BITS_MASK = 0x3FFF;
    /** The upper 6 bits of the flow label, folded onto the low 14. */
    private static final int FLOW_LABEL_HIGH_BITS = 0xF_C000;
    /** RoCEv2 source ports live in 0xC000-0xFFFF (IB_ROCE_UDP_ENCAP_VALID_PORT_MIN). */
    private static final int DYNAMIC_PORT_BASE = 0xC000;

    private final GidTable gids;
    private final Link link;

    /**
     * @param gids the port's GID table.
     * @param link the link whose neighbour table resolves destination MACs.
     */
    AddressResolution(final GidTable gids, final Link link)
    {
        this.gids = gids;
        this.link = link;
    }

    /**
     * Fill an address vector from address-handle attributes (any thread: reads only immutable state).
     *
     * @param ah  attributes.
     * @param out vector to fill.
     * @throws IllegalArgumentException when the source GID index is not in the table, or the GIDs are of different
     *                                  IP families.
     */
    void resolve(final AhAttributes ah, final AddressVector out)
    {
        final int index = ah.sgidIndex();
        if (!gids.isValidIndex(index))
        {
            throw new IllegalArgumentException("sgid_index " + index + " is not in the GID table (" + gids.listing() +
                ")");
        }
        out.gids(gids.high(index), gids.low(index), ah.dgidHigh(), ah.dgidLow())
            .trafficClass(ah.trafficClass())
            .hopLimit(ah.hopLimit())
            .flowLabel(ah.flowLabel())
            .serviceLevel(ah.serviceLevel());
    }

    /**
     * Start resolving the layer-2 address of a vector's destination (engine thread): the kernel resolves the
     * destination MAC when an address handle is created (ib_create_ah resolves the DMAC for RoCE) and when a
     * connected QP gets its path, so the first datagrams do not wait for ARP or overflow the link's hold queue.
     *
     * @param vector a resolved address vector.
     */
    void warmNeighbour(final AddressVector vector)
    {
        if (vector.ipv6())
        {
            link.resolve(vector.destinationHigh(), vector.destinationLow());
        }
        else
        {
            link.resolve(vector.destinationIpv4());
        }
    }

    /**
     * The UDP source port of a connected (RC/UC) QP: rdma_get_udp_sport(flow label, local QPN, remote QPN) from the
     * kernel's ib_verbs.h. A zero flow label is replaced by rdma_calc_flow_label(lqpn, rqpn); the 20-bit label
     * is folded to 14 bits and put in the dynamic range 0xC000-0xFFFF.
     *
     * @param flowLabel the address's flow label, 0 for "derive it".
     * @param localQpn  this QP.
     * @param remoteQpn the peer QP.
     * @return the port.
     */
    static int connectedUdpSourcePort(final int flowLabel, final int localQpn, final int remoteQpn)
    {
        int label = flowLabel & FLOW_LABEL_MASK;
        if (0 == label)
        {
            // rdma_calc_flow_label: fold the 64-bit product of both QPNs to 20 bits.
            long v = (localQpn & 0xFFFF_FFFFL) * (remoteQpn & 0xFFFF_FFFFL);
            v ^= v >>> 20;
            v ^= v >>> 40;
            label = (int)(v & FLOW_LABEL_MASK);
        }
        return ((label & PORT_BITS_MASK) ^ ((label & FLOW_LABEL_HIGH_BITS) >>> 14)) | DYNAMIC_PORT_BASE;
    }
}
