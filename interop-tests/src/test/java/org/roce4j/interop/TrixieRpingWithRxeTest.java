package org.roce4j.interop;

/**
 * {@link RpingWithRxeTest}'s cases against the newest rxe: a guest built from Debian 13 (trixie: Linux 6.12,
 * rdma-core 56.1, perftest 25.01) instead of Debian 12: rping of rdma-core 56.1 and Linux 6.12's rdma_cm: pings in
 * both roles, REJ, disconnects.
 */
@RxePeerTest(expectedCaseSeconds = 15, suite = "trixie")
class TrixieRpingWithRxeTest extends RpingWithRxeTest
{
}
