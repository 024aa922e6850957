package org.roce4j.transport.link.memory;

import java.util.List;

import org.roce4j.transport.link.LinkAddress;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.addr.Mac;

/**
 * The fabric's conformance over IPv6: dual-stack ports (their IPv4 address first, so the bad configurations of the
 * IPv4 suite still apply), every frame sent to and from their IPv6 addresses, which the switch routes on.
 */
class MemoryIpv6ConformanceTest extends MemoryConformanceTest
{
    protected boolean ipv6()
    {
        return true;
    }

    LinkAddress first()
    {
        return new LinkAddress(Mac.parse("02:00:00:4d:00:01"), List.of(Gid.parse("10.78.0.1"),
            Gid.parse("fd00:78::1")));
    }

    LinkAddress second()
    {
        return new LinkAddress(Mac.parse("02:00:00:4d:00:02"), List.of(Gid.parse("10.78.0.2"),
            Gid.parse("fd00:78::2")));
    }
}
