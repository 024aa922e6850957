package org.roce4j.testcontainers;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.roce4j.wire.header.Ipv4Header;

/**
 * Health checks and diagnostics of one boot of the rxe guest, through the channels that still work when a test's
 * command hangs: the diagnostic console (ttyS1), QMP, and frames from outside.
 *
 * <p>Healthy means: QEMU runs; both consoles answer; rxe holds no QP but its GSI QP (a leftover QP is a tool that did
 * not exit, or an rxe that could not tear one down); and eth0 answers an ARP request from outside (dgram) or a ping
 * from the tap's namespace (tap). The wedges of issue 12 fail the last check: the guest's console answered, but its
 * eth0 sent nothing more.
 */
public final class GuestDoctor
{
    /** Time each console gets to answer {@code true}. */
    private static final Duration CONSOLE_WAIT = Duration.ofSeconds(10);
    /** Time a tool the fixture killed gets to release its QPs. */
    private static final long QP_RELEASE_WAIT_NS = TimeUnit.SECONDS.toNanos(5);
    /** ARP requests sent to a guest before it counts as deaf, and the wait after each. */
    private static final int ARP_ATTEMPTS = 3;
    private static final Duration ARP_WAIT = Duration.ofSeconds(1);

    /**
     * What the guest knows at the moment of a stall, read on the diagnostic console: its kernel log (with SysRq's
     * backtrace of the CPU and every task's stack), eth0's statistics, TX queue and qdisc, interrupts and softirqs,
     * rxe's counters and QPs, the neighbour table, the processes.
     */
    static final List<String> GUEST_COMMANDS = List.of(
        "cat /proc/uptime /proc/loadavg",
        "top -bn1 | head -20",
        "ip -s -s link show eth0",
        "ethtool -S eth0",
        "tc -s qdisc show dev eth0",
        "for f in /sys/class/net/eth0/queues/tx-0/* /sys/class/net/eth0/queues/tx-0/byte_queue_limits/*; do " +
            "echo \"$f $(cat $f 2>&1)\"; done",
        "cat /proc/interrupts",
        "cat /proc/softirqs",
        "cat /proc/net/softnet_stat",
        "ip neigh show",
        "rdma res show qp",
        "rdma res show qp -dd",
        "rdma statistic show",
        "cd /sys/class/infiniband/rxe0/ports/1/hw_counters && grep -H . *",
        "cat /proc/net/snmp",
        "ps -o pid,stat,time,comm",
        "for p in /proc/[0-9]*; do s=$(cat $p/stack 2>/dev/null); case \"$s\" in *rxe*|*virtnet*|*net_*|*ib_*) " +
            "echo \"== ${p#/proc/} $(cat $p/comm)\"; echo \"$s\";; esac; done",
        "echo l >/proc/sysrq-trigger; echo t >/proc/sysrq-trigger; usleep 500000; dmesg");

    /**
     * A verdict.
     *
     * @param healthy true when the guest is fit for more work.
     * @param problem what is wrong, or null.
     */
    public record Health(boolean healthy, String problem)
    {
        /** Fit. */
        public static final Health OK = new Health(true, null);

        /**
         * @param problem what is wrong.
         * @return the verdict.
         */
        public static Health sick(final String problem)
        {
            return new Health(false, problem);
        }
    }

    /** How to see from outside that the guest's eth0 still moves frames both ways. */
    @FunctionalInterface
    public interface Liveness
    {
        /**
         * @return null when eth0 answered, else what it did not do.
         * @throws IOException when the probe itself fails.
         */
        String probe() throws IOException;
    }

    private GuestDoctor()
    {
    }

    /**
     * An ARP request for the guest's address through its dgram tunnel, from the tunnel link's address and MAC (see
     * {@link ArpProbe}); it binds the port QEMU sends to, so it runs only while no link is open.
     *
     * @param guest   the boot.
     * @param options the peer's options.
     * @return the liveness check of a dgram NIC.
     */
    public static Liveness arpProbe(final RxeGuest guest, final RxePeerOptions options)
    {
        return () -> ArpProbe.probe(guest.ports().linkPort(), guest.ports().guestDgramPort(),
            Ipv4Header.parseAddress(options.linkIp()), Ipv4Header.parseAddress(options.guestAddress()),
            ARP_ATTEMPTS, ARP_WAIT);
    }

    /**
     * A ping from the guest to an address on its segment that answers ICMP (the tap's side in tap mode): busybox's
     * ping on the diagnostic console, so nothing needs to be installed on the host.
     *
     * @param guest   the boot.
     * @param address the address to ping.
     * @return the liveness check of a NIC on a real segment.
     */
    public static Liveness pingFromGuest(final RxeGuest guest, final String address)
    {
        return () ->
        {
            final SerialConsole.Completion ping = guest.diag("ping -c 1 -W 2 " + address, CONSOLE_WAIT);
            return null != ping && 0 == ping.exitCode() ? null :
                "eth0 got no answer to a ping of " + address + (null == ping ? "" : ": " + ping.output().trim());
        };
    }

    /**
     * @param guest    the boot.
     * @param liveness how to see that eth0 moves frames.
     * @return the verdict; never throws.
     */
    static Health check(final RxeGuest guest, final Liveness liveness)
    {
        try
        {
            if (!guest.vm().isAlive())
            {
                return Health.sick("QEMU exited with code " + guest.vm().exitCode());
            }
            if (null == guest.diag("true", CONSOLE_WAIT))
            {
                return Health.sick("the diagnostic console (ttyS1) did not answer within " + CONSOLE_WAIT);
            }
            try
            {
                guest.run("true", CONSOLE_WAIT);
            }
            catch (final AssertionError ex)
            {
                return Health.sick("the command console (ttyS0) did not answer within " + CONSOLE_WAIT);
            }
            final String leftover = leftoverQps(guest);
            if (null != leftover)
            {
                return Health.sick("rxe still holds QPs after the case's programs were killed:\n" + leftover);
            }
            final String deaf = liveness.probe();
            return null == deaf ? Health.OK : Health.sick(deaf);
        }
        catch (final IOException | RuntimeException ex)
        {
            return Health.sick("health check failed: " + ex);
        }
    }

    /**
     * Save what QEMU and the guest know, as text files in a new directory.
     *
     * @param guest the boot.
     * @param dir   where (created).
     * @param why   the reason, written first.
     * @return the directory.
     */
    static Path capture(final RxeGuest guest, final Path dir, final String why)
    {
        try
        {
            Files.createDirectories(dir);
            Files.writeString(dir.resolve("why.txt"), Instant.now() + " " + guest.name() + "\n" + why + "\n" +
                "consoles: " + guest.name() + ".console.log, " + guest.name() + ".diag.log, " + guest.name() +
                ".stderr.log in interop-tests/target/rxe-vm\n", StandardCharsets.UTF_8);
            Files.writeString(dir.resolve("qemu.txt"), qemuView(guest), StandardCharsets.UTF_8);
            final StringBuilder text = new StringBuilder();
            for (final String command : GUEST_COMMANDS)
            {
                text.append("### ").append(command).append('\n');
                try
                {
                    final SerialConsole.Completion completion = guest.diag(command, Duration.ofSeconds(30));
                    text.append(null == completion ? "(no answer within 30 s)\n" :
                        completion.output() + "\n(exit code " + completion.exitCode() + ")\n");
                }
                catch (final IOException ex)
                {
                    text.append("(diagnostic console failed: ").append(ex).append(")\n");
                    break;
                }
            }
            Files.writeString(dir.resolve("guest.txt"), text, StandardCharsets.UTF_8);
            // QEMU's view again, to see what moved while the guest was being read
            Files.writeString(dir.resolve("qemu-after.txt"), qemuView(guest), StandardCharsets.UTF_8);
        }
        catch (final IOException ex)
        {
            System.out.println("[rxe-peer] could not save diagnostics in " + dir + ": " + ex);
        }
        return dir;
    }

    private static String qemuView(final RxeGuest guest)
    {
        final StringBuilder text = new StringBuilder();
        try (QmpClient qmp = guest.qmp(Duration.ofSeconds(10)))
        {
            final List<String> commands = new ArrayList<>(List.of("info status", "info network", "info virtio"));
            for (final String device : new String[] {"device[0]"})
            {
                final String path = "/machine/peripheral-anon/" + device + "/virtio-backend";
                commands.add("info virtio-status " + path);
                // virtio-net queue 0 is rx0, 1 is tx0
                commands.add("info virtio-queue-status " + path + " 0");
                commands.add("info virtio-queue-status " + path + " 1");
            }
            for (final String command : commands)
            {
                text.append("### ").append(command).append('\n').append(qmp.hmp(command)).append('\n');
            }
        }
        catch (final IOException ex)
        {
            text.append("(QMP failed: ").append(ex).append(")\n");
        }
        return text.toString();
    }

    private static String leftoverQps(final RxeGuest guest) throws IOException
    {
        final long deadlineNs = System.nanoTime() + QP_RELEASE_WAIT_NS;
        while (true)
        {
            final SerialConsole.Completion qps = guest.diag("rdma res show qp", CONSOLE_WAIT);
            if (null == qps)
            {
                return "'rdma res show qp' did not answer";
            }
            final StringBuilder leftover = new StringBuilder();
            for (final String line : qps.output().split("\n"))
            {
                // rxe's GSI QP (QP1, for the CM) always exists; any other QP belongs to a program
                if (line.contains(" lqpn ") && !line.contains(" lqpn 1 "))
                {
                    leftover.append(line.trim()).append('\n');
                }
            }
            if (0 == leftover.length())
            {
                return null;
            }
            if (deadlineNs - System.nanoTime() < 0)
            {
                return leftover.toString();
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
        }
    }
}
