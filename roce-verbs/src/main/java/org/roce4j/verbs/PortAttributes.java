package org.roce4j.verbs;

import org.roce4j.ib.Mtu;

/**
 * Port attributes (struct ibv_port_attr) of the one port of a roce4j device.
 *
 * @param state        logical state (ACTIVE while the device is open).
 * @param maxMtu       largest MTU the port supports (4096, as rxe's RXE_PORT_INFO_MTU_CAP).
 * @param activeMtu    the MTU in use, derived from the link's IP MTU as rxe does (1500 gives 1024).
 * @param gidTblLen    GID table length (as rxe: the link-local GID, one IPv4-mapped GID per IPv4 address, then each
 *                     global IPv6 address).
 * @param portCapFlags capability flags (IB_PORT_CM_SUP, as rxe).
 * @param maxMsgSz     largest message.
 * @param pkeyTblLen   P_Key table length.
 * @param linkLayer    {@link #LINK_LAYER_ETHERNET}.
 * @param lid          base LID (0 on RoCE).
 * @param smLid        subnet manager LID (0 on RoCE).
 */
public record PortAttributes(
    PortState state,
    Mtu maxMtu,
    Mtu activeMtu,
    int gidTblLen,
    int portCapFlags,
    long maxMsgSz,
    int pkeyTblLen,
    int linkLayer,
    int lid,
    int smLid)
{
    /** IBV_LINK_LAYER_ETHERNET. */
    public static final int LINK_LAYER_ETHERNET = 2;
    /** IB_PORT_CM_SUP (bit 16 of the port capability mask): the port runs a communication manager. */
    public static final int CAP_CM_SUP = 1 << 16;
}
