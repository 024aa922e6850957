package org.roce4j.conform.dut;

import org.roce4j.transport.link.LinkAddress;

/**
 * The conform peer's end of a connection, as the DUT is told it (what an out-of-band exchange would carry).
 *
 * @param address the peer's MAC and IPv4 address (its GID is the IPv4-mapped one).
 * @param qpn     the peer's QP number.
 * @param psn     the first PSN the peer sends (the DUT's responder expects it).
 */
public record PeerQp(LinkAddress address, int qpn, int psn)
{
}
