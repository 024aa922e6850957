package org.roce4j.testcontainers;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

import org.roce4j.wire.addr.Mac;
import org.roce4j.wire.header.Ipv4Header;

/**
 * The peer's ready line, every field parsed (docker/README.md, "Ready line"):
 * <pre>
 * ROCE4J-RXE-READY ip=10.77.0.2 mac=52:54:00:4d:00:02 mtu=1500 active_mtu=1024 ipv4_gid_index=1
 *   gids=0:fe80:...,1:0000:...:ffff:0a4d:0002 kernel=6.1.0-56-amd64 user_ip=10.0.2.15 boot_ms=4070
 * </pre>
 *
 * @param ip           the guest's RoCE address.
 * @param mac          MAC of the guest's RoCE NIC, low 48 bits.
 * @param mtu          the NIC's IP MTU.
 * @param activeMtu    rxe's active IB path MTU in bytes (1024 at MTU 1500, 4096 at MTU 9000).
 * @param ipv4GidIndex GID index of {@code ::ffff:<ip>} (RoCE v2), the {@code -g} argument of the pingpongs.
 * @param gids         every non-zero GID table entry by index, as 16 bytes.
 * @param kernel       the guest's kernel release.
 * @param userIp       address of the guest's user-networking NIC, or null.
 * @param bootMs       guest uptime at ready (for the container: its setup time).
 * @param fields       every key=value pair as printed, in order (fields may be added at the end).
 */
public record RxeReady(
    int ip,
    long mac,
    int mtu,
    int activeMtu,
    int ipv4GidIndex,
    Map<Integer, byte[]> gids,
    String kernel,
    String userIp,
    long bootMs,
    Map<String, String> fields)
{
    /** The first word of the ready line. */
    public static final String READY = "ROCE4J-RXE-READY";
    /** The first word of the line printed instead when the peer's setup failed. */
    public static final String FAILED = "ROCE4J-RXE-FAILED";

    /**
     * Parse a ready line.
     *
     * @param line the line, starting with {@link #READY}.
     * @return the parsed fields.
     * @throws IllegalArgumentException naming the line and the missing or bad field.
     */
    public static RxeReady parse(final String line)
    {
        final String trimmed = line.trim();
        if (!trimmed.startsWith(READY + " "))
        {
            throw new IllegalArgumentException("not a ready line: '" + line + "'");
        }
        final Map<String, String> fields = new LinkedHashMap<>();
        for (final String token : trimmed.substring(READY.length() + 1).trim().split("\\s+"))
        {
            final int eq = token.indexOf('=');
            if (eq <= 0)
            {
                throw new IllegalArgumentException("ready line token '" + token + "' is not key=value: '" + line + "'");
            }
            fields.put(token.substring(0, eq), token.substring(eq + 1));
        }
        try
        {
            final Map<Integer, byte[]> gids = new TreeMap<>();
            for (final String entry : require(fields, "gids").split(","))
            {
                final int colon = entry.indexOf(':');
                gids.put(Integer.parseInt(entry.substring(0, colon)), parseGid(entry.substring(colon + 1)));
            }
            final String userIp = require(fields, "user_ip");
            return new RxeReady(
                Ipv4Header.parseAddress(require(fields, "ip")),
                Mac.parse(require(fields, "mac")),
                Integer.parseInt(require(fields, "mtu")),
                Integer.parseInt(require(fields, "active_mtu")),
                Integer.parseInt(require(fields, "ipv4_gid_index")),
                Collections.unmodifiableMap(gids),
                require(fields, "kernel"),
                "none".equals(userIp) ? null : userIp,
                Long.parseLong(require(fields, "boot_ms")),
                Collections.unmodifiableMap(fields));
        }
        catch (final RuntimeException ex)
        {
            throw new IllegalArgumentException("bad ready line '" + line + "': " + ex.getMessage(), ex);
        }
    }

    /**
     * @return the 16 bytes of the guest's IPv4-mapped RoCE v2 GID.
     */
    public byte[] ipv4Gid()
    {
        final byte[] gid = gids.get(ipv4GidIndex);
        if (null == gid)
        {
            throw new IllegalStateException(
                "GID index " + ipv4GidIndex + " is not in the GID table " + fields.get("gids"));
        }
        return gid.clone();
    }

    /**
     * @return the IP as dotted quad.
     */
    public String ipString()
    {
        return Ipv4Header.addressToString(ip);
    }

    /**
     * Parse a GID as sysfs prints it: eight groups of four hex digits separated by ':'.
     *
     * @param text e.g. {@code 0000:0000:0000:0000:0000:ffff:0a4d:0002}.
     * @return the 16 bytes.
     */
    public static byte[] parseGid(final String text)
    {
        final String hex = text.replace(":", "");
        if (32 != hex.length())
        {
            throw new IllegalArgumentException("GID '" + text + "' does not have 32 hex digits");
        }
        final byte[] gid = new byte[16];
        for (int i = 0; i < 16; i++)
        {
            gid[i] = (byte)Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
        }
        return gid;
    }

    private static String require(final Map<String, String> fields, final String key)
    {
        final String value = fields.get(key);
        if (null == value)
        {
            throw new IllegalArgumentException("missing field " + key);
        }
        return value;
    }
}
