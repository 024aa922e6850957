package org.roce4j.cm.ib;

import java.util.Arrays;
import java.util.List;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.roce4j.wire.mad.CmAttribute;
import org.roce4j.wire.mad.CmSidrRepMessage;
import org.roce4j.wire.mad.CmSidrReqMessage;
import org.roce4j.wire.mad.MadHeader;
import org.roce4j.wire.mad.MadMethod;
import org.roce4j.wire.mad.RdmaCmServiceId;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * SIDR_REQ / SIDR_REP between two IB CMs (IBA 12.11; cm.c's SIDR handlers): the answer names the QPN and Q_Key,
 * an unknown service ID gets IB_SIDR_UNSUPPORTED, an unanswered SIDR_REQ is retried as a REQ is and then times out,
 * repeats of a SIDR_REQ still being answered are dropped, and destroying either side does what cm_destroy_id does.
 */
class CmSidrTest
{
    /** The UDP service of udaddy's port 7174. */
    private static final long UDP_SERVICE = RdmaCmServiceId.serviceId(RdmaCmServiceId.PS_UDP, 7174);
    /** RDMA_UDP_QKEY (include/rdma/rdma_cm.h). */
    private static final int QKEY = 0x0123_4567;
    /** cma.c's SIDR_REQ timeout: the CM response timeout alone, 4096 ms (a REQ waits 6144 ms). */
    private static final long SIDR_TIMEOUT_NS = 4096_000_000L;

    private final CmPair pair = new CmPair();

    private void listenUdp(final int verdict)
    {
        pair.b.listen(UDP_SERVICE, c ->
        {
            pair.requests.add(c);
            c.handler(pair.recB);
            return verdict;
        });
    }

    private CmConnection sidrA()
    {
        return pair.a.sidrRequest(UDP_SERVICE, new byte[] {1, 2, 3}, pair.recA, MadAddress.ipv4(CmPair.IP_B));
    }

    @Test
    void sidrReqIsAnsweredWithTheQpnAndQkeyAndBothSidesForgetTheExchange()
    {
        listenUdp(CmListener.PENDING);
        final CmConnection active = sidrA();
        assertEquals(CmState.SIDR_REQ_SENT, active.state());
        pair.deliver();
        assertEquals(1, pair.requests.size());
        final CmConnection passive = pair.requests.get(0);
        assertEquals(CmState.SIDR_REQ_RCVD, passive.state());
        assertEquals(UDP_SERVICE, passive.serviceId());
        assertEquals(active.localCommId(), passive.remoteCommId(), "the Request ID is the client's comm ID");
        assertEquals(MadAddress.ipv4(CmPair.IP_A).gidLow(), passive.remoteGidLow());
        assertEquals(CmSidrReqMessage.PRIVATE_DATA_LENGTH, passive.privateData().length);
        assertArrayEquals(new byte[] {1, 2, 3}, Arrays.copyOf(passive.privateData(), 3));

        pair.b.sidrReply(passive, CmSidrRepMessage.STATUS_SUCCESS, 0x22, QKEY, new byte[] {9});
        pair.deliver();
        assertEquals(List.of("sidr-reply status 0 qpn 0x22 qkey 0x1234567"), pair.recA.events);
        assertEquals(9, active.privateData()[0]);
        assertEquals(CmState.IDLE, active.state());
        assertEquals(CmState.IDLE, passive.state());
        assertNull(pair.a.connection(active.localCommId()));
        assertNull(pair.b.connection(passive.localCommId()));
        assertEquals(Long.MAX_VALUE, pair.a.earliestDeadlineNs(), "no retransmission left armed");

        final CmPair.Mad req = pair.sent("A", CmAttribute.SERVICE_ID_RES_REQ).get(0);
        final CmPair.Mad rep = pair.sent("B", CmAttribute.SERVICE_ID_RES_REQ_RESP).get(0);
        assertEquals(req.tid(), rep.tid(), "the SIDR_REP carries the SIDR_REQ's TID");
        final CmSidrReqMessage reqMessage = new CmSidrReqMessage().wrapMad(new UnsafeBuffer(req.bytes()), 0);
        assertEquals(0xFFFF, reqMessage.pkey());
        assertEquals(UDP_SERVICE, reqMessage.serviceId());
        final CmSidrRepMessage repMessage = new CmSidrRepMessage().wrapMad(new UnsafeBuffer(rep.bytes()), 0);
        assertEquals(active.localCommId(), repMessage.requestId());
        assertEquals(UDP_SERVICE, repMessage.serviceId());
        assertEquals(0x22, repMessage.qpn());
        assertEquals(QKEY, repMessage.qkey());
        assertEquals(MadMethod.SEND.code(), new MadHeader().wrap(new UnsafeBuffer(rep.bytes()), 0).method(),
            "SIDR_REP is a Send, like every CM MAD");

        assertEquals(1, pair.countersA.get(CmCounter.SIDR_REQ_SENT));
        assertEquals(1, pair.countersB.get(CmCounter.SIDR_REQ_RECEIVED));
        assertEquals(1, pair.countersB.get(CmCounter.SIDR_REP_SENT));
        assertEquals(1, pair.countersA.get(CmCounter.SIDR_REP_RECEIVED));
        assertEquals(0, pair.countersA.get(CmCounter.DROP_UNSUPPORTED_ATTRIBUTE));
    }

    @Test
    void sidrReqForAServiceNobodyListensOnGetsStatusUnsupportedAtOnce()
    {
        sidrA();
        pair.deliver();
        assertEquals(List.of("sidr-reply status 1 qpn 0x0 qkey 0x0"), pair.recA.events);
        assertEquals(1, pair.countersB.get(CmCounter.SIDR_REP_UNSUPPORTED));
        assertEquals(1, pair.countersB.get(CmCounter.SIDR_REP_SENT));
        assertEquals(List.of(), pair.b.connections(), "no state kept for an unknown service");
    }

    @Test
    void listenerRefusalIsAnsweredWithItsStatus()
    {
        listenUdp(CmSidrRepMessage.STATUS_REJECT);
        sidrA();
        pair.deliver();
        assertEquals(List.of("sidr-reply status 2 qpn 0x0 qkey 0x0"), pair.recA.events);
        assertEquals(1, pair.countersB.get(CmCounter.SIDR_REP_REJECT));
        assertEquals(List.of(), pair.b.connections());
    }

    @Test
    void unansweredSidrReqIsSent16TimesEvery4096MsThenTimesOut()
    {
        pair.dropWhen(mad -> true);
        final CmConnection active = sidrA();
        final int retries = new CmConfig().maxCmRetries();
        for (int i = 1; i <= retries; i++)
        {
            assertEquals(CmPair.START_NS + i * SIDR_TIMEOUT_NS, pair.nextTimer());
            assertEquals(CmState.SIDR_REQ_SENT, active.state());
        }
        final List<CmPair.Mad> sent = pair.sent("A", CmAttribute.SERVICE_ID_RES_REQ);
        assertEquals(retries + 1, sent.size());
        for (final CmPair.Mad mad : sent)
        {
            assertArrayEquals(sent.get(0).bytes(), mad.bytes(), "a retransmission is the same MAD");
        }
        assertEquals(List.of(), pair.recA.events);
        pair.nextTimer();
        assertEquals(List.of("timeout SIDR_REQ_SENT"), pair.recA.events);
        assertEquals(CmState.IDLE, active.state());
        assertEquals(retries, pair.countersA.get(CmCounter.RETRANSMISSIONS));
        assertEquals(1, pair.countersA.get(CmCounter.TIMEOUTS));
        assertEquals(1, pair.countersA.get(CmCounter.SIDR_REQ_SENT));
        assertEquals(Long.MAX_VALUE, pair.a.earliestDeadlineNs());
    }

    @Test
    void repeatOfASidrReqStillBeingAnsweredIsDroppedAndTheAnswerStillArrives()
    {
        listenUdp(CmListener.PENDING);
        final CmConnection active = sidrA();
        pair.deliver();
        pair.nextTimer();
        assertEquals(2, pair.sent("A", CmAttribute.SERVICE_ID_RES_REQ).size());
        assertEquals(1, pair.requests.size(), "the repeat is no new request");
        assertEquals(1, pair.countersB.get(CmCounter.DUPLICATES));
        assertEquals(List.of(), pair.sent("B", CmAttribute.SERVICE_ID_RES_REQ_RESP));
        pair.b.sidrReply(pair.requests.get(0), CmSidrRepMessage.STATUS_SUCCESS, 0x22, QKEY, null);
        pair.deliver();
        assertEquals(List.of("sidr-reply status 0 qpn 0x22 qkey 0x1234567"), pair.recA.events);
        assertEquals(CmState.IDLE, active.state());
    }

    @Test
    void lateSidrRepIsDroppedAsUnmatched()
    {
        listenUdp(CmListener.PENDING);
        sidrA();
        pair.deliver();
        pair.nextTimer();
        final CmConnection passive = pair.requests.get(0);
        pair.b.sidrReply(passive, CmSidrRepMessage.STATUS_SUCCESS, 0x22, QKEY, null);
        pair.deliver();
        final byte[] again = pair.sent("B", CmAttribute.SERVICE_ID_RES_REQ_RESP).get(0).bytes();
        CmPair.inject(pair.a, again, CmPair.IP_B);
        assertEquals(1, pair.countersA.get(CmCounter.DROP_UNMATCHED));
        assertEquals(1, pair.recA.events.size());
    }

    @Test
    void destroyingAnUnansweredSidrReqRejectsItAndDestroyingOursSendsNothing()
    {
        listenUdp(CmListener.PENDING);
        final CmConnection active = sidrA();
        pair.deliver();
        pair.b.destroy(pair.requests.get(0));
        pair.deliver();
        assertEquals(List.of("sidr-reply status 2 qpn 0x0 qkey 0x0"), pair.recA.events);
        assertEquals(CmState.IDLE, active.state());

        final int before = pair.trace.size();
        final CmConnection second = sidrA();
        pair.a.destroy(second);
        assertEquals(before + 1, pair.trace.size(), "only the SIDR_REQ itself");
        assertEquals(CmState.IDLE, second.state());
        assertEquals(Long.MAX_VALUE, pair.a.earliestDeadlineNs());
    }
}
