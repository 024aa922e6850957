package org.roce4j.interop;

/**
 * {@link UdaddyWithRxeTest}'s cases against the newest rxe: a guest built from Debian 13 (trixie: Linux 6.12,
 * rdma-core 56.1) instead of Debian 12: udaddy of rdma-core 56.1 and Linux 6.12's rdma_cm over UD (SIDR) in both
 * roles, and the SIDR_REQ for a port nobody listens on.
 */
@RxePeerTest(expectedCaseSeconds = 15, suite = "trixie")
class TrixieUdaddyWithRxeTest extends UdaddyWithRxeTest
{
}
