package org.roce4j.wire;

/**
 * Transport service of an opcode: bits 7..5 of the BTH opcode (IBA 9.2, table 39; ib_pack.h).
 */
public enum Transport
{
    /** Reliable Connected, opcode base 0x00. */
    RC(0x00),
    /** Unreliable Connected, opcode base 0x20. */
    UC(0x20),
    /** Unreliable Datagram, opcode base 0x60. */
    UD(0x60),
    /** RoCEv2 Congestion Notification Packet, opcode base 0x80 (IBA A17.9.3). */
    CNP(0x80);

    /** Bits of the opcode byte that name the transport. */
    public static final int TRANSPORT_MASK = 0xE0;

    private final int base;

    Transport(final int base)
    {
        this.base = base;
    }

    /**
     * @return the value of opcode bits 7..5 for this transport.
     */
    public int base()
    {
        return base;
    }
}
