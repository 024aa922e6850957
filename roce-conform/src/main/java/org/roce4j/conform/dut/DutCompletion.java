package org.roce4j.conform.dut;

import org.roce4j.ib.WcStatus;

/**
 * A completion the DUT reported (for a remote DUT: what its tool printed).
 *
 * @param wrId    work request id.
 * @param status  completion status.
 * @param byteLen bytes (receives).
 * @param receive true for a receive completion.
 */
public record DutCompletion(long wrId, WcStatus status, int byteLen, boolean receive)
{
}
