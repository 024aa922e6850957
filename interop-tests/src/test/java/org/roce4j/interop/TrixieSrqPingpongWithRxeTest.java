package org.roce4j.interop;

/**
 * {@link SrqPingpongWithRxeTest}'s cases against the newest rxe: a guest built from Debian 13 (trixie: Linux 6.12,
 * rdma-core 56.1) instead of Debian 12: ibv_srq_pingpong of rdma-core 56.1 with 1, 16 and 64 QPs, in both roles.
 */
@RxePeerTest(hostAccess = true, suite = "trixie")
class TrixieSrqPingpongWithRxeTest extends SrqPingpongWithRxeTest
{
}
