package org.roce4j.transport.provider;

/**
 * An address handle of a {@link DeviceOps}: a UD destination resolved once (source and destination IP addresses,
 * traffic class, hop limit, flow label), which a UD send WR names ({@link SendWrView#ah()}) and the provider copies.
 */
public interface AhOps
{
    /**
     * @return true for an IPv6 path, false for IPv4.
     */
    boolean ipv6();
}
