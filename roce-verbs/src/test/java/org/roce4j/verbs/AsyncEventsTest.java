package org.roce4j.verbs;

import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.roce4j.ib.AsyncEvent;
import org.roce4j.ib.AsyncEventType;
import org.roce4j.ib.QpAttrMask;
import org.roce4j.ib.QpAttributes;
import org.roce4j.ib.QpState;
import org.roce4j.ib.QpType;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WcStatus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.roce4j.verbs.VerbsFixture.ALL_ACCESS;
import static org.roce4j.verbs.VerbsFixture.register;

/**
 * Communication-established and last-WQE-reached events, delivered through the device.
 */
class AsyncEventsTest
{
    private final VerbsFixture fx = new VerbsFixture();

    @AfterEach
    void close()
    {
        fx.close();
    }

    @Test
    void firstRequestOnAQpInRtrRaisesCommunicationEstablished()
    {
        final VerbsFixture.Params params = new VerbsFixture.Params();
        final CompletionQueue cqA = fx.a.createCq(8);
        final CompletionQueue cqB = fx.b.createCq(8);
        final QueuePair qpA = fx.pdA.createQp(VerbsFixture.init(QpType.RC, cqA, cqA));
        final QueuePair qpB = fx.pdB.createQp(VerbsFixture.init(QpType.RC, cqB, cqB));
        VerbsFixture.bringUp(qpA, qpB.qpNum(), fx.b.queryGid(1), params.psnA, params.psnB, params);
        VerbsFixture.toInit(qpB, params);
        VerbsFixture.toRtr(qpB, qpA.qpNum(), fx.a.queryGid(1), params.psnA, params);
        final MemoryRegion src = register(fx.pdA, 64, ALL_ACCESS);
        final MemoryRegion dst = register(fx.pdB, 64, ALL_ACCESS);
        qpB.postRecv(new RecvWorkRequest().wrId(1).addSge(dst, 0, 64));
        VerbsFixture.events(fx.b);

        qpA.postSend(new SendWorkRequest().wrId(2).sendFlags(SendFlags.SIGNALED).addSge(src, 0, 16));
        assertEquals(WcStatus.SUCCESS, VerbsFixture.drain(cqB, 1).get(0).status(), "a QP in RTR receives");
        final AsyncEvent event = fx.b.getAsyncEvent(0);
        assertEquals(new AsyncEvent(AsyncEventType.COMM_EST, qpB.qpNum()), event);
        assertEquals(QpState.RTR, qpB.state());
        assertEquals(WcStatus.SUCCESS, VerbsFixture.drain(cqA, 1).get(0).status(), "RTR also sends ACKs");
    }

    @Test
    void qpOnAnSrqEnteringErrorRaisesLastWqeReached()
    {
        final SharedReceiveQueue srq = fx.pdB.createSrq(4, 1);
        final VerbsFixture.Pair c = fx.connect(QpType.RC, p -> { }, init -> { }, init -> init.srq(srq));
        VerbsFixture.events(fx.b);
        final QpAttributes attr = new QpAttributes();
        attr.qpState = QpState.ERR;
        c.b.qp.modify(attr, QpAttrMask.STATE);
        fx.settle();
        final List<AsyncEvent> events = VerbsFixture.events(fx.b);
        assertTrue(events.contains(new AsyncEvent(AsyncEventType.QP_LAST_WQE_REACHED, c.b.qp.qpNum())),
            events.toString());
    }
}
