package org.roce4j.cm.rdmacm;

/**
 * The state rules an {@link RdmaCmId} call checks before it acts, each failing with librdmacm's reason as an
 * IllegalStateException naming the identifier (rdma_cm's EINVAL for a call in the wrong state).
 */
final class RdmaCmIdRules
{
    private RdmaCmIdRules()
    {
    }

    static void requireState(final RdmaCmId id, final String what, final RdmaCmId.State expected)
    {
        if (expected != id.state())
        {
            throw new IllegalStateException("identifier " + id.number() + " cannot " + what + " in state " +
                id.state() + " (needs " + expected + ")");
        }
    }

    static void requireNoQp(final RdmaCmId id, final String what)
    {
        if (null != id.qp())
        {
            throw new IllegalStateException("identifier " + id.number() + " already has QP " + id.qp().qpNum());
        }
        if (RdmaCmId.State.LISTENING == id.state() || RdmaCmId.State.DESTROYED == id.state())
        {
            throw new IllegalStateException("cannot " + what + " identifier " + id.number() + " in state " +
                id.state());
        }
    }

    static void requireQp(final RdmaCmId id, final String what)
    {
        if (null == id.qp())
        {
            throw new IllegalStateException("identifier " + id.number() + " has no QP to " + what + " with: call " +
                "createQp first");
        }
    }
}
