package org.roce4j.verbs;

/**
 * Shared receive queue attributes (struct ibv_srq_attr).
 *
 * @param maxWr    receive WRs the SRQ holds.
 * @param maxSge   SGEs per receive WR.
 * @param srqLimit armed limit: an SRQ_LIMIT_REACHED event fires when fewer WRs than this remain; 0 when disarmed.
 */
public record SrqAttributes(int maxWr, int maxSge, int srqLimit)
{
}
