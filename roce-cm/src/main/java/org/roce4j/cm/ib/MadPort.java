package org.roce4j.cm.ib;

import org.agrona.DirectBuffer;

/**
 * Sends MADs for the CM: QP1 of a device ({@link GsiPort}), or a test double.
 */
@FunctionalInterface
public interface MadPort
{
    /**
     * Send one 256-byte MAD.
     *
     * @param to     destination GID and QP.
     * @param mad    holding the MAD.
     * @param offset of its first byte.
     * @return false when it could not be sent now (no free send buffer); the CM counts it and its timers resend.
     */
    boolean send(MadAddress to, DirectBuffer mad, int offset);
}
