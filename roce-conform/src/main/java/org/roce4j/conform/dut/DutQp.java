package org.roce4j.conform.dut;

import org.roce4j.ib.QpType;
import org.roce4j.transport.link.LinkAddress;

/**
 * What the conform peer knows about the DUT's end once connected: its QP and the memory it exposes (as perftest's
 * exchange gives the rkey and VA), plus the attributes the checkers time against.
 *
 * @param type           RC or UD.
 * @param address        the DUT's MAC and IPv4 address.
 * @param qpn            the DUT's QP number.
 * @param sqPsn          the first PSN the DUT's requester sends.
 * @param pathMtuBytes   path MTU of the connection, bytes.
 * @param va             start of the DUT's remotely accessible region.
 * @param rkey           its R_Key.
 * @param length         its length, bytes.
 * @param restrictedVa     start of a region registered without remote access (when restrictedLength &gt; 0).
 * @param restrictedRkey   its R_Key.
 * @param restrictedLength its length, 0 when the DUT exposes no such region.
 * @param timeout        the DUT QP's local ACK timeout exponent (4.096 us x 2^timeout).
 * @param retryCount     its retry count.
 * @param minRnrTimer    its min_rnr_timer code (what its RNR NAKs must carry).
 * @param qkey           its Q_Key (UD).
 * @param maxDestRdAtomic its max_dest_rd_atomic: READs/atomics its responder keeps resources for (IRD; perftest's
 *                        exchange carries it as out_reads).
 */
public record DutQp(
    QpType type,
    LinkAddress address,
    int qpn,
    int sqPsn,
    int pathMtuBytes,
    long va,
    int rkey,
    int length,
    long restrictedVa,
    int restrictedRkey,
    int restrictedLength,
    int timeout,
    int retryCount,
    int minRnrTimer,
    int qkey,
    int maxDestRdAtomic)
{
    /**
     * @return the local ACK timeout in nanoseconds: 4.096 us x 2^timeout (IBA 9.7.6.1.3), 0 when disabled.
     */
    public long localAckTimeoutNs()
    {
        return 0 == timeout ? 0 : 4096L << timeout;
    }
}
