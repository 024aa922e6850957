package org.roce4j.testcontainers;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;

import org.testcontainers.containers.ContainerLaunchException;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.output.OutputFrame;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

/**
 * A real Linux Soft-RoCE (rdma_rxe) peer for your own tests: the QEMU rxe guest of docker/rxe-vm, run inside the
 * {@code roce4j/rxe-qemu} container (docker/rxe-qemu; build it with {@code docker/build-images.sh}), so it works on
 * any Docker host, with or without rdma_rxe in the host kernel. The container uses the host's network: the guest's
 * RoCE NIC is a dgram tunnel on two UDP ports of 127.0.0.1 that roce4j's tunnel link reaches
 * ({@link #tunnelLinkSpec()}), its TCP ports are forwarded to 127.0.0.1 ({@link #forwardedPort(int)}), and it can
 * reach servers on the host's 127.0.0.1 at 10.0.2.2 ({@link #withHostAccess()}).
 *
 * <pre>{@code
 * @Testcontainers
 * class MyRdmaTest {
 *     @Container
 *     static RxeContainer rxe = new RxeContainer().withHostAccess();
 *
 *     @Test
 *     void writeBandwidthAgainstRxe() throws Exception {
 *         rxe.guest().start("server", "ib_write_bw -d rxe0 -x 1 -s 4096 -n 1000");
 *         rxe.guest().awaitGuestListening(18515, Duration.ofSeconds(30));
 *         // roce4j: --link rxe.tunnelLinkSpec(), server 127.0.0.1 -p rxe.forwardedPort(18515)
 *         assertEquals(0, rxe.guest().waitFor("server", Duration.ofMinutes(1)));
 *     }
 * }
 * }</pre>
 *
 * <p>Commands run in the guest through its serial console: {@link #exec(String)}, and the rest of
 * {@link RxeCommands} on {@link #guest()} (background programs, their logs, copying files out, rxe's counters).
 * {@link #health()} and {@link #diagnose(Path, String)} look at a guest that stopped answering.
 *
 * <p>Testcontainers' Ryuk helper comes from an image registry; where none is reachable, run with
 * {@code TESTCONTAINERS_RYUK_DISABLED=true}: this class stops its container itself (on {@link #stop()}, which the
 * JUnit 5 extension calls, and in a JVM shutdown hook).
 */
public class RxeContainer extends GenericContainer<RxeContainer>
{
    /** The image docker/build-images.sh builds; the system property {@code roce4j.rxe.image} names another. */
    public static final String DEFAULT_IMAGE = "roce4j/rxe-qemu:latest";

    private RxePeerOptions options = RxePeerOptions.defaults("rxe");
    private Path logDir = Path.of("target", "rxe");
    private RxeGuest guest;
    private Path stderrLog;

    /**
     * The default image ({@value #DEFAULT_IMAGE}, or the system property {@code roce4j.rxe.image}).
     */
    public RxeContainer()
    {
        this(DockerImageName.parse(System.getProperty("roce4j.rxe.image", DEFAULT_IMAGE)));
    }

    /**
     * @param image an image built from docker/rxe-qemu.
     */
    public RxeContainer(final DockerImageName image)
    {
        super(image);
        withNetworkMode("host");
        // run-vm.sh prints QEMU's command line before it execs QEMU; the guest's readiness is awaited on its console
        waitingFor(Wait.forLogMessage(".*qemu-system-x86_64 .*", 1));
        withLogConsumer(this::keepLog);
        Runtime.getRuntime().addShutdownHook(new Thread(this::stopQuietly, "rxe-container-shutdown"));
    }

    /**
     * @param mtu the guest NIC's IP MTU: 1500 gives rxe an active MTU of 1024, 9000 gives 4096.
     * @return this.
     */
    public RxeContainer withMtu(final int mtu)
    {
        options = new RxePeerOptions(options.name(), mtu, options.guestIp(), options.linkIp(), options.hostfwd(),
            options.hostAccess(), options.readyTimeout());
        return this;
    }

    /**
     * @param guestCidr the guest's RoCE address with prefix, e.g. {@code 10.77.0.2/24}.
     * @param linkIp    roce4j's address on that segment, e.g. {@code 10.77.0.1}.
     * @return this.
     */
    public RxeContainer withAddresses(final String guestCidr, final String linkIp)
    {
        options = new RxePeerOptions(options.name(), options.mtu(), guestCidr, linkIp, options.hostfwd(),
            options.hostAccess(), options.readyTimeout());
        return this;
    }

    /**
     * @param guestPorts guest TCP ports to forward from the host's 127.0.0.1 (18515, perftest's and the pingpong
     *                   examples' port, by default).
     * @return this.
     */
    public RxeContainer withForwardedGuestPorts(final int... guestPorts)
    {
        options = new RxePeerOptions(options.name(), options.mtu(), options.guestIp(), options.linkIp(), guestPorts,
            options.hostAccess(), options.readyTimeout());
        return this;
    }

    /**
     * Let programs in the guest connect to servers on the host's 127.0.0.1, at 10.0.2.2 (for tools that are the
     * client, e.g. {@code ibv_rc_pingpong -g 1 -p P 10.0.2.2} against a roce4j server).
     *
     * @return this.
     */
    public RxeContainer withHostAccess()
    {
        options = new RxePeerOptions(options.name(), options.mtu(), options.guestIp(), options.linkIp(),
            options.hostfwd(), true, options.readyTimeout());
        return this;
    }

    /**
     * @param name        names the guest's logs ({@code <name>.console.log} ...).
     * @param logDir      where its consoles and QEMU's stderr are logged ({@code target/rxe} by default).
     * @param readyTimout how long the guest may take to boot (120 s by default; TCG emulation on a busy host).
     * @return this.
     */
    public RxeContainer withLogs(final String name, final Path logDir, final Duration readyTimout)
    {
        options = new RxePeerOptions(name, options.mtu(), options.guestIp(), options.linkIp(), options.hostfwd(),
            options.hostAccess(), readyTimout);
        this.logDir = logDir;
        return this;
    }

    /**
     * @return the peer's settings.
     */
    public RxePeerOptions options()
    {
        return options;
    }

    /**
     * Start the container and boot the guest; returns when rxe is ready ({@link #ready()}).
     */
    public void start()
    {
        if (null != guest)
        {
            return;
        }
        try
        {
            Files.createDirectories(logDir);
            guest = RxeGuest.boot(options, options.name(), logDir, new RxeGuest.Launcher()
            {
                public boolean tcp()
                {
                    return true;   // the host's network: 127.0.0.1 is shared, whatever user each side runs as
                }

                public RxeGuest.Vm start(final List<String> arguments, final RxeGuest.Ports ports, final Path log)
                {
                    return startContainer(arguments, log);
                }
            });
        }
        catch (final IOException ex)
        {
            stopQuietly();
            throw new ContainerLaunchException("the rxe guest in " + getDockerImageName() + " did not get ready: " +
                ex.getMessage() + " (logs in " + logDir.toAbsolutePath() + ")", ex);
        }
    }

    /**
     * Power the guest off and remove the container.
     */
    public void stop()
    {
        final RxeGuest current = guest;
        guest = null;
        if (null != current)
        {
            current.close();   // poweroff -f, then stops the container (RxeGuest.Vm#stop)
        }
        else
        {
            super.stop();
        }
    }

    /**
     * @return the running guest: {@link RxeCommands} for commands, background programs, files and counters.
     * @throws IllegalStateException before {@link #start()}.
     */
    public RxeGuest guest()
    {
        if (null == guest)
        {
            throw new IllegalStateException("the rxe container is not started");
        }
        return guest;
    }

    /**
     * Run a command in the guest (busybox sh; ibv_*, perftest's ib_*, rping, rdma, ip are there).
     *
     * @param command one command line.
     * @return exit code and output.
     * @throws IOException when the guest is gone.
     */
    public RxeCommands.Result exec(final String command) throws IOException
    {
        return guest().run(command);
    }

    /**
     * @return the guest's ready line: its address, MAC, MTUs, GID table and kernel.
     */
    public RxeReady ready()
    {
        return guest().ready();
    }

    /**
     * @return the guest's RoCE address, e.g. {@code 10.77.0.2}.
     */
    public String guestAddress()
    {
        return options.guestAddress();
    }

    /**
     * @return a roce4j link spec that reaches the guest's RoCE NIC ({@code tunnel:...,ip=<link ip>}).
     */
    public String tunnelLinkSpec()
    {
        return guest().tunnelLinkConfig(options.linkIp(), options.mtu()).toSpec();
    }

    /**
     * @param pcap where the link records every frame (Wireshark reads it).
     * @return a roce4j link spec that reaches the guest's RoCE NIC and records to {@code pcap}.
     */
    public String tunnelLinkSpec(final Path pcap)
    {
        return guest().tunnelLinkConfig(options.linkIp(), options.mtu()).withPcap(pcap).toSpec();
    }

    /**
     * @param guestPort a port given to {@link #withForwardedGuestPorts}.
     * @return the port on the host's 127.0.0.1 that reaches it.
     */
    public int forwardedPort(final int guestPort)
    {
        final Integer port = guest().ports().hostPorts().get(guestPort);
        if (null == port)
        {
            throw new IllegalArgumentException("guest port " + guestPort + " is not forwarded; forwarded: " +
                guest().ports().hostPorts().keySet() + " (withForwardedGuestPorts)");
        }
        return port;
    }

    /**
     * @param hostPort a TCP port on the host's 127.0.0.1.
     * @return host:port as a program in the guest must dial it ({@link #withHostAccess()}).
     */
    public String hostAddressForGuest(final int hostPort)
    {
        if (!options.hostAccess())
        {
            throw new IllegalStateException("the guest cannot reach the host: use withHostAccess()");
        }
        return "10.0.2.2:" + hostPort;   // QEMU user networking maps 10.0.2.2 to the host's loopback
    }

    /**
     * @return is the guest fit for more work (consoles answer, no QP left over, eth0 answers ARP)? Run it while no
     *     tunnel link to the guest is open.
     */
    public GuestDoctor.Health health()
    {
        return guest().health(GuestDoctor.arpProbe(guest(), options));
    }

    /**
     * @param dir where to save what QEMU and the guest know now.
     * @param why the reason, written first.
     * @return the directory.
     */
    public Path diagnose(final Path dir, final String why)
    {
        return guest().capture(dir, why);
    }

    private RxeGuest.Vm startContainer(final List<String> arguments, final Path log)
    {
        stderrLog = log;
        withCommand(arguments.toArray(new String[0]));
        super.start();
        return new RxeGuest.Vm()
        {
            public boolean isAlive()
            {
                return isRunning();
            }

            public int exitCode()
            {
                if (isRunning())
                {
                    return -1;
                }
                try
                {
                    final Long code = getCurrentContainerInfo().getState().getExitCodeLong();
                    return null == code ? -1 : code.intValue();
                }
                catch (final RuntimeException ex)
                {
                    return -1;   // removed already
                }
            }

            public void stop(final long waitMs)
            {
                // QEMU is PID 1: after poweroff -f it has exited, else docker stop's SIGTERM ends it
                RxeContainer.super.stop();
            }
        };
    }

    private void keepLog(final OutputFrame frame)
    {
        final Path log = stderrLog;
        if (null == log || OutputFrame.OutputType.END == frame.getType())
        {
            return;
        }
        try (OutputStream out = Files.newOutputStream(log, StandardOpenOption.CREATE, StandardOpenOption.APPEND))
        {
            out.write(frame.getUtf8String().getBytes(StandardCharsets.UTF_8));
        }
        catch (final IOException ignore)
        {
            // the log is diagnostics only
        }
    }

    private void stopQuietly()
    {
        try
        {
            stop();
        }
        catch (final RuntimeException ignore)
        {
            // shutting down: nothing more to do
        }
    }
}
