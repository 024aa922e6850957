package org.roce4j.cli;

import org.roce4j.transport.cc.CongestionControl;
import org.roce4j.verbs.DeviceOptions;
import picocli.CommandLine.Option;

/**
 * The congestion-control and traffic-class options of the commands that move RoCE traffic (pingpong, perf, rping,
 * incast): {@code --cc} (ConnectX's DCQCN with its parameters, or none) and {@code --tclass} (perftest's: the IP TOS
 * of IPv4 packets, the traffic class of IPv6 ones). One description, so every help text says the same.
 */
public final class CcOptions
{
    /**
     * Every DCQCN parameter with its default: {@link CongestionControl#describeParameters()} as a constant (an
     * annotation needs one), which {@code CcOptionsTest} checks against it. Its percent sign is doubled: picocli
     * formats descriptions with String.format, where a lone {@code %} followed by a comma garbles the help.
     */
    static final String PARAMETERS = "rate_to_set_on_first_cnp=0 Mb/s, clamp_tgt_rate=0, " +
        "clamp_tgt_rate_after_time_inc=1, rpg_time_reset=300 µs, rpg_byte_reset=32767 bytes, rpg_threshold=1 " +
        "events, rpg_max_rate=0 Mb/s, rpg_ai_rate=5 Mb/s, rpg_hai_rate=50 Mb/s, rpg_gd=11 log2, " +
        "rpg_min_dec_fac=50 %%, " +
        "rpg_min_rate=1 Mb/s, dce_tcp_g=1019 1/1024, dce_tcp_rtt=1 µs, rate_reduce_monitor_period=4 µs, " +
        "initial_alpha_value=1023 1/1024, min_time_between_cnps=4 µs, cnp_dscp=48 DSCP, cnp_ecn=2 ECN, " +
        "cnp_udp_sport=0 port, line_rate=25000 Mb/s";
    /** The help text of {@code --cc}. */
    static final String CC_DESCRIPTION = "congestion control: none (default, as rxe) or dcqcn as ConnectX does it " +
        "(CE-marked packets make the receiver send CNPs, senders cut and recover their rate, ECT(0) on every " +
        "packet), with PARAM=VALUE overrides of ConnectX-5's defaults: " + PARAMETERS;
    /** The help text of {@code --tclass}. */
    static final String TCLASS_DESCRIPTION = "IP traffic class of the QPs' packets, 0..255, as perftest's " +
        "--tclass: the TOS byte of IPv4, the traffic class of IPv6 (default 0; with --cc dcqcn its ECN bits become " +
        "ECT(0)); over --link udp the kernel writes the TOS";

    @Option(names = "--cc", paramLabel = "none|dcqcn[,PARAM=VALUE...]", description = CC_DESCRIPTION)
    private String cc = "none";

    @Option(names = "--tclass", paramLabel = "N", description = TCLASS_DESCRIPTION)
    private Integer tclass;

    /**
     * @return the congestion control asked for.
     * @throws IllegalArgumentException naming the problem in {@code --cc}.
     */
    public CongestionControl congestionControl()
    {
        try
        {
            return CongestionControl.parse(cc);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException("--cc " + cc + ": " + ex.getMessage(), ex);
        }
    }

    /**
     * @param options a device's options.
     * @return the same options, their engine configuration with {@code --cc}'s congestion control.
     */
    public DeviceOptions apply(final DeviceOptions options)
    {
        options.engineConfig().congestionControl(congestionControl());
        return options;
    }

    /**
     * Options of a device whose engine runs on its own agent thread (DEDICATED), so it keeps answering ARP and
     * acknowledging while the command's thread is busy with an out-of-band exchange or polling, as a NIC would; with
     * {@code --cc}'s congestion control.
     *
     * @param spin busy-spin the engine thread (lowest latency, a core of its own) instead of backing off when idle.
     * @return new options.
     */
    public DeviceOptions dedicatedDevice(final boolean spin)
    {
        final DeviceOptions options = DeviceOptions.dedicated();
        return apply(spin ? options : options.backoff());
    }

    /**
     * @return true when {@code --tclass} was given.
     */
    public boolean hasTrafficClass()
    {
        return null != tclass;
    }

    /**
     * @return {@code --tclass}, or 0 when not given.
     * @throws IllegalArgumentException outside 0..255.
     */
    public int trafficClass()
    {
        if (null == tclass)
        {
            return 0;
        }
        if (tclass < 0 || tclass > 255)
        {
            throw new IllegalArgumentException("--tclass " + tclass + ": a traffic class is 0..255");
        }
        return tclass;
    }
}
