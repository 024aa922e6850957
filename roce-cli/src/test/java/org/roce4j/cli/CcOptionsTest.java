package org.roce4j.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.junit.jupiter.api.Test;
import org.roce4j.cli.pingpong.Pingpong;
import org.roce4j.cli.pingpong.PingpongSettings;
import org.roce4j.ib.QpType;
import org.roce4j.transport.cc.CongestionControl.Param;
import org.roce4j.transport.cc.CongestionControl;
import org.roce4j.transport.link.FrameHandler;
import org.roce4j.transport.link.Link;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.link.LinkCounters;
import org.roce4j.transport.link.memory.MemoryFabric;
import org.roce4j.verbs.DeviceOptions;
import org.roce4j.verbs.ProgressGroup;
import org.roce4j.verbs.RdmaDevice;
import picocli.CommandLine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code --cc} and {@code --tclass} (issue 18 point 2 and 3): every command that moves RoCE traffic takes them and
 * says so in its help; picocli's parse gives the engine configuration's congestion control; and a pingpong run with
 * them puts the traffic class, with ECT(0) under DCQCN, into the IP TOS byte of every RoCE frame it sends.
 */
class CcOptionsTest
{
    private static final List<String> COMMANDS = List.of("pingpong", "perf", "rping", "incast");

    @Test
    void theHelpListsEveryParameterWithItsDefault()
    {
        assertEquals(CongestionControl.describeParameters(), CcOptions.PARAMETERS.replace("%%", "%"));
        for (final String name : COMMANDS)
        {
            final Cli.Result result = Cli.run(name, "--help");
            assertEquals(0, result.exitCode(), name);
            final String flat = result.out().replaceAll("\\s+", "");
            assertTrue(flat.contains("--cc=none|dcqcn[,PARAM=VALUE...]"), name + ":\n" + result.out());
            assertTrue(flat.contains("rpg_time_reset=300µs"), name);
            assertTrue(flat.contains("rpg_min_dec_fac=50%,"), name + ":\n" + result.out());
            assertFalse(result.out().contains("%n"), name + ": picocli's line breaks printed raw:\n" + result.out());
            if (!"incast".equals(name))
            {
                assertTrue(flat.contains("--tclass=N"), name);
                assertTrue(flat.contains("asperftest's--tclass"), name);
            }
        }
    }

    private static CcOptions parse(final Object command, final String... args)
    {
        final CommandLine commandLine = new CommandLine(command);
        commandLine.parseArgs(args);
        return (CcOptions)commandLine.getCommandSpec().mixins().get("cc").userObject();
    }

    @Test
    void eachCommandParsesCcIntoItsEngineConfiguration()
    {
        for (final Object command : List.of(new PingpongCommand(), new PerfCommand(), new RpingCommand(),
            new IncastCommand()))
        {
            final String cc0 = "dcqcn,rpg_time_reset=1200,rpg_ai_rate=1,rpg_hai_rate=10";
            // perf needs its test named.
            final CcOptions cc = command instanceof PerfCommand ? parse(command, "write_bw", "--cc", cc0, "--tclass",
                "96") : parse(command, "--cc", cc0, "--tclass", "96");
            final CongestionControl parsed = cc.congestionControl();
            assertTrue(parsed.enabled(), command.getClass().getSimpleName());
            assertEquals(1200, parsed.get(Param.RPG_TIME_RESET));
            assertEquals(1, parsed.get(Param.RPG_AI_RATE));
            assertEquals(10, parsed.get(Param.RPG_HAI_RATE));
            assertEquals(CongestionControl.DCQCN.get(Param.RPG_BYTE_RESET), parsed.get(Param.RPG_BYTE_RESET),
                "the rest keep ConnectX-5's defaults");
            final DeviceOptions options = cc.apply(DeviceOptions.invoker());
            assertEquals(parsed.toString(), options.engineConfig().congestionControl().toString());
            assertTrue(cc.hasTrafficClass());
            assertEquals(96, cc.trafficClass());
        }
        final CcOptions defaults = parse(new PingpongCommand());
        assertSame(CongestionControl.NONE, defaults.congestionControl(), "rxe's behaviour by default");
        assertFalse(defaults.hasTrafficClass());
        assertEquals(0, defaults.trafficClass());
        assertSame(CongestionControl.NONE, parse(new PerfCommand(), "write_bw", "--cc", "none").congestionControl());
    }

    @Test
    void badValuesAreRefusedWithTheOptionNamed()
    {
        final IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
            () -> parse(new PingpongCommand(), "--cc", "dcqcn,rpg_bogus=1").congestionControl());
        assertTrue(unknown.getMessage().startsWith("--cc dcqcn,rpg_bogus=1: "), unknown.getMessage());
        final IllegalArgumentException tclass = assertThrows(IllegalArgumentException.class,
            () -> parse(new RpingCommand(), "--tclass", "256").trafficClass());
        assertTrue(tclass.getMessage().contains("0..255"), tclass.getMessage());
        final Cli.Result run = Cli.run("pingpong", "--cc", "reno");
        assertEquals(1, run.exitCode(), run.err());
        assertTrue(run.err().contains("--cc reno"), run.err());
    }

    @Test
    void pingpongPutsTheTrafficClassAndEctIntoEveryFrame() throws Exception
    {
        // --tclass 96 is DSCP 24 (0x60); DCQCN sets the ECN bits to ECT(0) (binary 10): TOS 0x62 on every RoCE frame
        // either side sends (the CM-less exchange runs over TCP, so every frame on the fabric is RoCE).
        final CcOptions cc = parse(new PingpongCommand(), "--cc", "dcqcn", "--tclass", "96");
        final List<Integer> tos = new CopyOnWriteArrayList<>();
        final PingpongSettings settings = new PingpongSettings().transport(QpType.RC).iterations(20).size(64)
            .gidIndex(1).trafficClass(cc.trafficClass()).events(true).timeoutMs(30_000);
        try (MemoryFabric fabric = new MemoryFabric();
            ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            final Link serverLink = new TosRecorder(fabric.attach(LinkAddress.of("02:00:00:00:00:01", "10.0.0.1"),
                1500), tos);
            final Link clientLink = new TosRecorder(fabric.attach(LinkAddress.of("02:00:00:00:00:02", "10.0.0.2"),
                1500), tos);
            final CompletableFuture<Void> server = CompletableFuture.runAsync(() ->
            {
                try (RdmaDevice device = RdmaDevice.open(serverLink, options(cc)))
                {
                    new Pingpong(device, settings.copy().server(null), new PrintWriter(new StringWriter()), listener)
                        .run();
                }
                catch (final java.io.IOException ex)
                {
                    throw new IllegalStateException(ex);
                }
            });
            try (RdmaDevice device = RdmaDevice.open(clientLink, options(cc)))
            {
                new Pingpong(device, settings.copy().server("127.0.0.1").port(listener.getLocalPort()),
                    new PrintWriter(new StringWriter()), null).run();
            }
            server.get();
        }
        assertTrue(tos.size() >= 40, "20 iterations each way: " + tos.size() + " frames");
        for (final int t : tos)
        {
            assertEquals(0x62, t);
        }
    }

    private static DeviceOptions options(final CcOptions cc)
    {
        return cc.apply(DeviceOptions.invoker().progressGroup(new ProgressGroup()));
    }

    /** A link that notes the IPv4 TOS byte of every frame committed to it. */
    private static final class TosRecorder implements Link
    {
        private static final int TOS_OFFSET = 14 + 1;
        private final Link link;
        private final List<Integer> tos;

        TosRecorder(final Link link, final List<Integer> tos)
        {
            this.link = link;
            this.tos = tos;
        }

        public String name()
        {
            return link.name();
        }

        public LinkAddress address()
        {
            return link.address();
        }

        public int mtu()
        {
            return link.mtu();
        }

        public boolean verifiesIcrc()
        {
            return link.verifiesIcrc();
        }

        public int tryClaim(final int maxLength)
        {
            return link.tryClaim(maxLength);
        }

        public MutableDirectBuffer sendBuffer()
        {
            return link.sendBuffer();
        }

        public void commit(final int index, final int length)
        {
            tos.add(link.sendBuffer().getByte(index + TOS_OFFSET) & 0xFF);
            link.commit(index, length);
        }

        public void abort(final int index)
        {
            link.abort(index);
        }

        public int flush()
        {
            return link.flush();
        }

        public boolean send(final DirectBuffer frame, final int offset, final int length)
        {
            tos.add(frame.getByte(offset + TOS_OFFSET) & 0xFF);
            return link.send(frame, offset, length);
        }

        public int poll(final FrameHandler handler, final int maxFrames)
        {
            return link.poll(handler, maxFrames);
        }

        public LinkCounters counters()
        {
            return link.counters();
        }

        public void close()
        {
            link.close();
        }
    }
}
