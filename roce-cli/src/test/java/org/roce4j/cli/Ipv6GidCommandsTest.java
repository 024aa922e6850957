package org.roce4j.cli;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code -g} (pingpong) and {@code -x} (perf) pick the GID by index as on rxe: the in-process ports carry an IPv4
 * and a global IPv6 address, so GID 2 is {@code fd00:77::x} and the run goes over IPv6, its GIDs in the exchanged
 * records.
 */
class Ipv6GidCommandsTest
{
    @Test
    void pingpongOverTheGlobalIpv6Gid()
    {
        final Cli.Result result = Cli.run("pingpong", "-g", "2", "-n", "20", "-s", "64");
        assertEquals(0, result.exitCode(), result.err());
        assertTrue(result.out().contains("GID fd00:77::2"), "the client's record:\n" + result.out());
        assertTrue(result.out().contains("GID fd00:77::1"), "the server's record:\n" + result.out());
        assertTrue(result.out().contains("20 iters in"), result.out());
    }

    @Test
    void pingpongOverTheLinkLocalGid()
    {
        final Cli.Result result = Cli.run("pingpong", "-g", "0", "-n", "20", "-s", "64");
        assertEquals(0, result.exitCode(), result.err());
        assertTrue(result.out().contains("GID fe80::ff:fe00:2"), result.out());
    }

    @Test
    void perfSendLatencyOverTheGlobalIpv6Gid()
    {
        final Cli.Result result = Cli.run("perf", "send_lat", "-x", "2", "-n", "50");
        assertEquals(0, result.exitCode(), result.err());
        assertTrue(result.out().contains("GID index       : 2"), result.out());
        // perftest prints each GID byte in decimal: fd00:77::2 is 253:00:00:119:...:02.
        assertTrue(result.out().contains(" GID: 253:00:00:119:00:00:00:00:00:00:00:00:00:00:00:02"), result.out());
        assertTrue(result.out().contains(" GID: 253:00:00:119:00:00:00:00:00:00:00:00:00:00:00:01"), result.out());
    }

    @Test
    void rpingOverIpv6Addresses()
    {
        final Cli.Result result = Cli.run("rping", "--link", "memory", "-a", "fd00:77::1", "-C", "3", "-v", "--trace");
        assertEquals(0, result.exitCode(), result.err());
        assertTrue(result.out().contains("ping data: rdma-ping-2"), result.out());
        assertTrue(result.err().contains(" tx fd00:77::2") || result.err().contains(" tx [fd00:77::2]"),
            "the client's frames go over IPv6:\n" + result.err());
    }

    @Test
    void gidsListsTheInProcessPortsAsShowGidsDoes()
    {
        final Cli.Result result = Cli.run("gids");
        assertEquals(0, result.exitCode(), result.err());
        final String[] lines = result.out().split("\n");
        assertEquals("DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV", lines[0]);
        assertTrue(lines[2].matches("\\S+\t1\t0\tfe80:0000:0000:0000:0000:00ff:fe00:0001\t  \tv2\t.*"), lines[2]);
        assertTrue(lines[3].matches(
            "\\S+\t1\t1\t0000:0000:0000:0000:0000:ffff:c0a8:4d01\t192.168.77.1  \tv2\t.*"), lines[3]);
        assertTrue(lines[4].matches("\\S+\t1\t2\tfd00:0077:0000:0000:0000:0000:0000:0001\t  \tv2\t.*"), lines[4]);
        assertTrue(result.out().contains("\t2\tfd00:0077:0000:0000:0000:0000:0000:0002\t"), result.out());
        assertEquals("n_gids_found=6", lines[lines.length - 1]);
    }
}
