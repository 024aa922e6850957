package org.roce4j.interop;

/**
 * {@link UcmatoseWithRxeTest}'s cases against the newest rxe: a guest built from Debian 13 (trixie: Linux 6.12,
 * rdma-core 56.1) instead of Debian 12: ucmatose with -c 1 and -c 10, rdma_server and rdma_client of rdma-core 56.1
 * against Linux 6.12's rdma_cm, each in both roles.
 */
@RxePeerTest(expectedCaseSeconds = 20, suite = "trixie")
class TrixieUcmatoseWithRxeTest extends UcmatoseWithRxeTest
{
}
