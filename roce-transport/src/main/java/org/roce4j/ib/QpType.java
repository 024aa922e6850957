package org.roce4j.ib;

import org.roce4j.wire.Transport;

/**
 * Queue pair transport types roce4j implements (enum ibv_qp_type; rxe supports the same four).
 */
public enum QpType
{
    /** Reliable Connected (IBV_QPT_RC = 2). */
    RC(2, Transport.RC),
    /** Unreliable Connected (IBV_QPT_UC = 3). */
    UC(3, Transport.UC),
    /** Unreliable Datagram (IBV_QPT_UD = 4). */
    UD(4, Transport.UD),
    /** General Services Interface: the UD QP with number 1 that carries management datagrams (IB_QPT_GSI). */
    GSI(1, Transport.UD);

    private final int verbsValue;
    private final Transport transport;

    QpType(final int verbsValue, final Transport transport)
    {
        this.verbsValue = verbsValue;
        this.transport = transport;
    }

    /**
     * @return the libibverbs / kernel enum value.
     */
    public int verbsValue()
    {
        return verbsValue;
    }

    /**
     * @return the wire transport whose opcodes this QP sends and accepts.
     */
    public Transport transport()
    {
        return transport;
    }

    /**
     * @return true for UD and GSI.
     */
    public boolean isDatagram()
    {
        return Transport.UD == transport;
    }
}
