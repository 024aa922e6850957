package org.roce4j.testcontainers;

import java.time.Duration;
import java.util.Arrays;

/**
 * How to start an rxe guest ({@link RxeGuest#boot}, {@link RxeContainer}).
 *
 * @param name         a name for log files (the test class's simple name).
 * @param mtu          IP MTU of the guest's RoCE NIC: 1500 gives rxe an active MTU of 1024, 9000 gives 4096.
 * @param guestIp      guest RoCE address with prefix length, e.g. {@code 10.77.0.2/24}.
 * @param linkIp       the address the host side (the tunnel link) uses on the same segment.
 * @param hostfwd      guest TCP ports the host may connect to (QEMU user networking {@code hostfwd}); each gets a
 *                     free host port.
 * @param hostAccess   let the guest open TCP connections to the host's 127.0.0.1 through {@code 10.0.2.2} (QEMU
 *                     user networking with {@code restrict=off}), for guest programs that connect out.
 * @param readyTimeout how long to wait for the ready line.
 * @param tap          put the guest's RoCE NIC on a tap device in a network namespace made for the peer
 *                     ({@value RxeGuest#TAP_DEVICE}; whoever runs QEMU makes it and starts QEMU inside that
 *                     namespace) instead of a {@code -netdev dgram} tunnel; the tap gets {@code linkIp} with
 *                     guestIp's prefix length. Needs root; excludes hostfwd and hostAccess (programs in the namespace
 *                     reach the guest at its own address).
 * @param suite        the guest's Debian release: {@code bookworm} (Linux 6.1, rdma-core 44, perftest 4.5) or
 *                     {@code trixie} (Linux 6.12, rdma-core 56, perftest 25.01); each has its own image.
 */
public record RxePeerOptions(
    String name,
    int mtu,
    String guestIp,
    String linkIp,
    int[] hostfwd,
    boolean hostAccess,
    Duration readyTimeout,
    boolean tap,
    String suite)
{
    /** The Debian releases the guest image is built from (docker/rxe-vm/build-image.sh --suite). */
    public static final java.util.List<String> SUITES = java.util.List.of("bookworm", "trixie");

    /** TCP port of the ibv_*_pingpong and perftest side channel. */
    public static final int PINGPONG_PORT = 18515;

    /**
     * Validate.
     *
     * @throws IllegalArgumentException naming the bad setting.
     */
    public RxePeerOptions
    {
        if (null == name || !name.matches("[A-Za-z0-9_.-]+"))
        {
            throw new IllegalArgumentException("peer name must be [A-Za-z0-9_.-]+, got '" + name + "'");
        }
        if (mtu < 576 || mtu > 9000)
        {
            throw new IllegalArgumentException("guest MTU " + mtu + " is out of range 576..9000");
        }
        if (null == guestIp || !guestIp.matches("\\d+\\.\\d+\\.\\d+\\.\\d+/\\d+"))
        {
            throw new IllegalArgumentException("guest IP must be A.B.C.D/N, got '" + guestIp + "'");
        }
        hostfwd = hostfwd.clone();
        for (final int port : hostfwd)
        {
            if (port < 1 || port > 65535)
            {
                throw new IllegalArgumentException("hostfwd guest port " + port + " is out of range");
            }
        }
        if (!SUITES.contains(suite))
        {
            throw new IllegalArgumentException("guest suite '" + suite + "' is not one of " + SUITES);
        }
        if (tap && (0 != hostfwd.length || hostAccess))
        {
            throw new IllegalArgumentException("tap mode: give hostfwd = {} and no hostAccess; QEMU runs inside the " +
                "tap's network namespace, where programs reach the guest at " + guestIp + " directly");
        }
    }

    /**
     * Options without tap mode (the guest's RoCE NIC on a {@code -netdev dgram} tunnel).
     *
     * @param name         a name for log files.
     * @param mtu          IP MTU of the guest's RoCE NIC.
     * @param guestIp      guest RoCE address with prefix length.
     * @param linkIp       the host side's address on the same segment.
     * @param hostfwd      guest TCP ports the host may connect to.
     * @param hostAccess   let the guest open TCP connections to the host's 127.0.0.1.
     * @param readyTimeout how long to wait for the ready line.
     */
    public RxePeerOptions(
        final String name,
        final int mtu,
        final String guestIp,
        final String linkIp,
        final int[] hostfwd,
        final boolean hostAccess,
        final Duration readyTimeout)
    {
        this(name, mtu, guestIp, linkIp, hostfwd, hostAccess, readyTimeout, false, "bookworm");
    }

    /**
     * Options of a bookworm guest.
     *
     * @param name         a name for log files.
     * @param mtu          IP MTU of the guest's RoCE NIC.
     * @param guestIp      guest RoCE address with prefix length.
     * @param linkIp       the host side's address on the same segment.
     * @param hostfwd      guest TCP ports the host may connect to.
     * @param hostAccess   let the guest open TCP connections to the host's 127.0.0.1.
     * @param readyTimeout how long to wait for the ready line.
     * @param tap          put the guest's RoCE NIC on a tap device.
     */
    public RxePeerOptions(
        final String name,
        final int mtu,
        final String guestIp,
        final String linkIp,
        final int[] hostfwd,
        final boolean hostAccess,
        final Duration readyTimeout,
        final boolean tap)
    {
        this(name, mtu, guestIp, linkIp, hostfwd, hostAccess, readyTimeout, tap, "bookworm");
    }

    /**
     * @param newSuite the guest's Debian release.
     * @return these options with that release.
     */
    public RxePeerOptions withSuite(final String newSuite)
    {
        return new RxePeerOptions(name, mtu, guestIp, linkIp, hostfwd, hostAccess, readyTimeout, tap, newSuite);
    }

    /**
     * Defaults: MTU 1500, guest 10.77.0.2/24, link 10.77.0.1, the pingpong port forwarded, 120 s to get ready.
     *
     * @param name for log files.
     * @return the options.
     */
    public static RxePeerOptions defaults(final String name)
    {
        return new RxePeerOptions(
            name, 1500, "10.77.0.2/24", "10.77.0.1", new int[] {PINGPONG_PORT}, false, Duration.ofSeconds(120));
    }

    /**
     * @return the forwarded guest ports (a copy).
     */
    public int[] hostfwd()
    {
        return hostfwd.clone();
    }

    /**
     * @return the guest address without the prefix length.
     */
    public String guestAddress()
    {
        return guestIp.substring(0, guestIp.indexOf('/'));
    }

    /**
     * @return the host side's address with the guest's prefix length, e.g. {@code 10.98.0.1/24} (the tap's address
     *     in tap mode).
     */
    public String linkCidr()
    {
        return linkIp + guestIp.substring(guestIp.indexOf('/'));
    }

    /**
     * @return e.g. {@code name mtu=1500 ip=10.77.0.2/24 hostfwd=[18515]}.
     */
    public String toString()
    {
        return name + " mtu=" + mtu + " ip=" + guestIp + " link=" + linkIp + " hostfwd=" + Arrays.toString(hostfwd) +
            (hostAccess ? " host-access" : "") + (tap ? " tap" : "") + ("bookworm".equals(suite) ? "" : " " + suite);
    }
}
