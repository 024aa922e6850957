package org.roce4j.transport.link;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.DatagramSocket;
import java.net.InetAddress;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.roce4j.transport.link.fault.FaultyLink;
import org.roce4j.transport.link.tunnel.TunnelLink;
import org.roce4j.transport.link.tunnel.TunnelLinkConfig;
import org.roce4j.transport.link.udp.UdpLink;
import org.roce4j.wire.addr.Gid;

/**
 * The spec strings of {@code --link} reach the right link class, and bad specs name the problem.
 */
final class LinkSpecsTest
{
    @Test
    void memoryIsRecognisedButCannotBeOpenedAlone()
    {
        assertTrue(LinkSpecs.isMemory(" memory "));
        assertFalse(LinkSpecs.isMemory("udp:127.0.0.1"));
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> LinkSpecs.open("memory"));
        assertTrue(ex.getMessage().contains("only inside one JVM"), ex.getMessage());
    }

    @Test
    void tunnelSpecOpensTunnelLink() throws Exception
    {
        try (Link link = LinkSpecs.open("tunnel:127.0.0.1:0:127.0.0.1:9,ip=10.77.0.1"))
        {
            assertInstanceOf(TunnelLink.class, link);
        }
    }

    @Test
    void tunnelLossIsADropRuleOfAFaultyLink() throws Exception
    {
        try (Link link = LinkSpecs.open("tunnel:127.0.0.1:0:127.0.0.1:9,ip=10.77.0.1,loss=0.25,seed=7"))
        {
            final FaultyLink faulty = assertInstanceOf(FaultyLink.class, link);
            assertInstanceOf(TunnelLink.class, faulty.delegate());
            assertTrue(faulty.report().startsWith("faults 'drop=0.25;seed=7' (seed 7)"), faulty.report());
        }
        final IllegalArgumentException direct = assertThrows(IllegalArgumentException.class,
            () -> TunnelLink.open(TunnelLinkConfig.parse("tunnel:127.0.0.1:0:127.0.0.1:9,ip=10.77.0.1,loss=0.25")));
        assertTrue(direct.getMessage().contains("loss= is a drop rule of a FaultyLink"), direct.getMessage());
    }

    @Test
    void udpSpecOpensIpv6UdpLinkOnLoopback() throws Exception
    {
        final int port;
        try (DatagramSocket probe = new DatagramSocket(0, InetAddress.getByName("::1")))
        {
            port = probe.getLocalPort();
        }
        try (Link link = LinkSpecs.open("udp:[::1],port=" + port))
        {
            assertInstanceOf(UdpLink.class, link);
            assertEquals(List.of(Gid.parse("::1")), link.address().ips());
            assertEquals(0, link.address().ipv4());
            assertTrue(link.name().startsWith("udp:[::1]:" + port + "/"), link.name());
        }
    }

    @Test
    void udpSpecOpensUdpLink() throws Exception
    {
        final int port;
        try (DatagramSocket probe = new DatagramSocket(0, InetAddress.getLoopbackAddress()))
        {
            port = probe.getLocalPort();
        }
        try (Link link = LinkSpecs.open("udp:127.0.0.1,port=" + port))
        {
            assertInstanceOf(UdpLink.class, link);
        }
    }

    @Test
    void pcapSpecReachesPcapParser()
    {
        final RuntimeException ex = assertThrows(RuntimeException.class,
            () -> LinkSpecs.open("pcap:no-such-interface-roce4j,ip=10.77.0.1"));
        assertTrue(ex.getMessage().contains("no-such-interface-roce4j"), ex.getMessage());
    }

    @Test
    void unknownSchemeListsTheForms()
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> LinkSpecs.open("ether:eth0"));
        assertTrue(ex.getMessage().contains(LinkSpecs.FORMS), ex.getMessage());
    }
}
