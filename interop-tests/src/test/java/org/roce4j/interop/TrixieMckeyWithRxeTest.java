package org.roce4j.interop;

/**
 * {@link MckeyWithRxeTest}'s cases against the newest rxe: a guest built from Debian 13 (trixie: Linux 6.12,
 * rdma-core 56.1) instead of Debian 12: mckey of rdma-core 56.1 and Linux 6.12's rdma_cm and rxe multicast, in both
 * roles over an IPv4 group. One difference met: the guest's {@code mckey -s} posts its 10 sends unsignaled and
 * destroys its QP at once, and rxe 6.12 puts some or all of them on the wire (1 of 10 in two runs, 10 in a third, a
 * race in the sender's kernel); the case checks that roce4j received every one that was sent.
 */
@RxePeerTest(expectedCaseSeconds = 20, suite = "trixie")
class TrixieMckeyWithRxeTest extends MckeyWithRxeTest
{
    @Override
    protected boolean guestSenderSendsAll()
    {
        return false;
    }
}
