package org.roce4j.transport.cc;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;

/**
 * Congestion control of one device, as a ConnectX NIC does it: {@link Mode#NONE} (rxe's behaviour, the default) or
 * {@link Mode#DCQCN}: notification point (a CE-marked data packet makes the receiving QP send a CNP to the sender),
 * reaction point ({@link DcqcnReactionPoint}: the sending QP cuts its rate on CNPs and recovers without them) and a
 * pacer in the requester holding each rate-limited QP to its current rate. With DCQCN every packet the engine sends is
 * marked ECN-capable, ECT(0) (RFC 3168), so that switches mark it CE instead of dropping it.
 *
 * <p>Every parameter has the name NVIDIA gives it in MLNX_OFED's sysfs/debugfs ({@code /sys/class/net/<if>/ecn/} and
 * {@code cc_params} of the mlx5 driver, without their {@code rp_}/{@code np_} prefixes; firmware NVConfig names are
 * the same upper-cased) and ConnectX-5's default (NVIDIA, "DCQCN Parameters", ConnectX-4 and later, and an
 * {@code mlxconfig query} of a ConnectX-4 Lx: CLAMP_TGT_RATE_AFTER_TIME_INC 1, CLAMP_TGT_RATE 0, RPG_TIME_RESET 300,
 * RPG_BYTE_RESET 32767, RPG_THRESHOLD 1, RPG_MAX_RATE 0, RPG_AI_RATE 5, RPG_HAI_RATE 50, RPG_GD 11, RPG_MIN_DEC_FAC
 * 50, RPG_MIN_RATE 1, RATE_TO_SET_ON_FIRST_CNP 0, DCE_TCP_G 1019, DCE_TCP_RTT 1, RATE_REDUCE_MONITOR_PERIOD 4,
 * INITIAL_ALPHA_VALUE 1023, MIN_TIME_BETWEEN_CNPS 4, CNP_DSCP 48). Three parameters are roce4j's own:
 * {@code line_rate} (the port speed the reaction point treats as full rate; a NIC knows its own),
 * {@code cnp_ecn} and {@code cnp_udp_sport} (ConnectX sends its CNPs ECT(0) from UDP source port 0, as a
 * ConnectX-4 Lx capture shows: TOS 0xC2, source port 0; protocol-facts B.4).
 *
 * <p>Text form, as {@code --cc} takes it: {@code none}, or {@code dcqcn} followed by comma-separated
 * {@code PARAM=VALUE} pairs, e.g. {@code dcqcn,rpg_time_reset=1200,rpg_ai_rate=1,rpg_hai_rate=10}
 * ({@link #parse(String)}, {@link #toString()}).
 *
 * <p>Immutable once built; the engine reads it from any thread.
 */
public final class CongestionControl
{
    /** What the device does about congestion. */
    public enum Mode
    {
        /** Nothing: no ECT marking, no CNPs, no rate limiting; CNPs received are ignored and counted. */
        NONE,
        /** ConnectX's DCQCN: notification point, reaction point, pacer, ECT(0) on data packets. */
        DCQCN
    }

    /** IP ECN codepoint Not-ECT (RFC 3168 section 5). */
    public static final int ECN_NOT_ECT = 0;
    /** IP ECN codepoint ECT(0) (RFC 3168 section 5): what ConnectX puts on RoCE packets and on its CNPs. */
    public static final int ECN_ECT0 = 2;
    /** IP ECN codepoint CE, Congestion Experienced (RFC 3168 section 5), set by a switch instead of dropping. */
    public static final int ECN_CE = 3;

    /** Congestion control off (the default of every device). */
    public static final CongestionControl NONE = new CongestionControl(Mode.NONE, Param.defaults());
    /** DCQCN with ConnectX-5's defaults. */
    public static final CongestionControl DCQCN = new CongestionControl(Mode.DCQCN, Param.defaults());

    /**
     * Every parameter: its name, unit, range and ConnectX-5 default.
     */
    public enum Param
    {
        /** Reaction point: Mb/s the QP's rate is set to on its first CNP; 0 = {@code line_rate}. */
        RATE_TO_SET_ON_FIRST_CNP("rate_to_set_on_first_cnp", "Mb/s", 0, 0, 1_000_000),
        /** Reaction point: 1 = every rate decrease sets the target rate to the current rate. */
        CLAMP_TGT_RATE("clamp_tgt_rate", "0|1", 0, 0, 1),
        /** Reaction point: 1 = a decrease sets the target rate to the current rate if a timer increase happened. */
        CLAMP_TGT_RATE_AFTER_TIME_INC("clamp_tgt_rate_after_time_inc", "0|1", 1, 0, 1),
        /** Reaction point: µs between rate increases of the timer when no CNP arrives. */
        RPG_TIME_RESET("rpg_time_reset", "µs", 300, 1, 131_071),
        /** Reaction point: bytes sent between rate increases of the byte counter when no CNP arrives; 0 = off. */
        RPG_BYTE_RESET("rpg_byte_reset", "bytes", 32_767, 0, 32_767),
        /** Reaction point: increase events per counter before fast recovery gives way to additive increase. */
        RPG_THRESHOLD("rpg_threshold", "events", 1, 1, 31),
        /** Reaction point: Mb/s above which the QP is no longer rate limited; 0 = {@code line_rate}. */
        RPG_MAX_RATE("rpg_max_rate", "Mb/s", 0, 0, 1_000_000),
        /** Reaction point: Mb/s added to the target rate by an additive increase. */
        RPG_AI_RATE("rpg_ai_rate", "Mb/s", 5, 1, 100_000),
        /** Reaction point: Mb/s added to the target rate by a hyper increase. */
        RPG_HAI_RATE("rpg_hai_rate", "Mb/s", 50, 1, 100_000),
        /** Reaction point: a decrease multiplies the rate by (1 - alpha / 2^rpg_gd), alpha in 1/1024 units. */
        RPG_GD("rpg_gd", "log2", 11, 1, 20),
        /** Reaction point: a decrease keeps at least this percentage of the rate. */
        RPG_MIN_DEC_FAC("rpg_min_dec_fac", "%", 50, 0, 100),
        /** Reaction point: the lowest rate, Mb/s. */
        RPG_MIN_RATE("rpg_min_rate", "Mb/s", 1, 1, 1_000_000),
        /** Reaction point: alpha = alpha * g/1024 (+ (1024 - g) with a CNP) every dce_tcp_rtt. */
        DCE_TCP_G("dce_tcp_g", "1/1024", 1019, 0, 1023),
        /** Reaction point: µs between alpha updates. */
        DCE_TCP_RTT("dce_tcp_rtt", "µs", 1, 1, 131_071),
        /** Reaction point: µs between rate decreases (one per period if CNPs arrived in it). */
        RATE_REDUCE_MONITOR_PERIOD("rate_reduce_monitor_period", "µs", 4, 1, 1_000_000),
        /** Reaction point: alpha on the first CNP, in 1/1024 units. */
        INITIAL_ALPHA_VALUE("initial_alpha_value", "1/1024", 1023, 0, 1023),
        /** Notification point: µs a QP waits after sending a CNP before it sends another. */
        MIN_TIME_BETWEEN_CNPS("min_time_between_cnps", "µs", 4, 0, 4_095),
        /** Notification point: DSCP of CNPs. */
        CNP_DSCP("cnp_dscp", "DSCP", 48, 0, 63),
        /** Notification point: ECN codepoint of CNPs (roce4j; ConnectX: ECT(0), 2). */
        CNP_ECN("cnp_ecn", "ECN", ECN_ECT0, 0, 3),
        /** Notification point: UDP source port of CNPs (roce4j; ConnectX: 0). */
        CNP_UDP_SPORT("cnp_udp_sport", "port", 0, 0, 65_535),
        /** The port speed, Mb/s: the reaction point's full rate (roce4j; a NIC knows its own). */
        LINE_RATE("line_rate", "Mb/s", 25_000, 1, 1_000_000);

        private final String text;
        private final String unit;
        private final long defaultValue;
        private final long min;
        private final long max;

        Param(final String text, final String unit, final long defaultValue, final long min, final long max)
        {
            this.text = text;
            this.unit = unit;
            this.defaultValue = defaultValue;
            this.min = min;
            this.max = max;
        }

        /**
         * @return the name in NVIDIA's documentation, e.g. {@code rpg_time_reset}.
         */
        public String text()
        {
            return text;
        }

        /**
         * @return the unit, e.g. {@code µs}.
         */
        public String unit()
        {
            return unit;
        }

        /**
         * @return ConnectX-5's default (roce4j's for its own parameters).
         */
        public long defaultValue()
        {
            return defaultValue;
        }

        /**
         * @return the smallest value accepted.
         */
        public long min()
        {
            return min;
        }

        /**
         * @return the largest value accepted.
         */
        public long max()
        {
            return max;
        }

        static long[] defaults()
        {
            final Param[] all = values();
            final long[] values = new long[all.length];
            for (int i = 0; i < all.length; i++)
            {
                values[i] = all[i].defaultValue;
            }
            return values;
        }

        static Param byText(final String name)
        {
            for (final Param p : values())
            {
                if (p.text.equals(name))
                {
                    return p;
                }
            }
            final StringJoiner names = new StringJoiner(", ");
            for (final Param p : values())
            {
                names.add(p.text);
            }
            throw new IllegalArgumentException("unknown congestion control parameter '" + name + "'; the parameters " +
                "are " + names);
        }
    }

    private final Mode mode;
    private final long[] values;

    private CongestionControl(final Mode mode, final long[] values)
    {
        this.mode = mode;
        this.values = values;
    }

    /**
     * Read the text form: {@code none}, {@code dcqcn}, or {@code dcqcn,PARAM=VALUE,...}.
     *
     * @param text the text.
     * @return the configuration.
     * @throws IllegalArgumentException naming the problem: an unknown mode or parameter, a value that is not a number
     *                                  or out of its range, parameters after {@code none}.
     */
    public static CongestionControl parse(final String text)
    {
        if (null == text || text.isBlank())
        {
            throw new IllegalArgumentException("congestion control: expected none or dcqcn[,PARAM=VALUE...], got '" +
                text + "'");
        }
        final String[] parts = text.trim().split(",");
        final String modeText = parts[0].trim().toLowerCase(Locale.ROOT);
        final Mode mode;
        switch (modeText)
        {
            case "none":
                mode = Mode.NONE;
                break;
            case "dcqcn":
                mode = Mode.DCQCN;
                break;
            default:
                throw new IllegalArgumentException("congestion control '" + parts[0].trim() + "': expected none or " +
                    "dcqcn[,PARAM=VALUE...]");
        }
        if (Mode.NONE == mode && parts.length > 1)
        {
            throw new IllegalArgumentException("congestion control 'none' takes no parameters: " + text);
        }
        CongestionControl result = Mode.NONE == mode ? NONE : DCQCN;
        for (int i = 1; i < parts.length; i++)
        {
            final String pair = parts[i].trim();
            final int eq = pair.indexOf('=');
            if (eq <= 0 || eq == pair.length() - 1)
            {
                throw new IllegalArgumentException("congestion control parameter '" + pair + "': expected PARAM=VALUE");
            }
            final Param param = Param.byText(pair.substring(0, eq).trim().toLowerCase(Locale.ROOT));
            final long value;
            try
            {
                value = Long.parseLong(pair.substring(eq + 1).trim());
            }
            catch (final NumberFormatException ex)
            {
                throw new IllegalArgumentException("congestion control parameter " + param.text + ": '" +
                    pair.substring(eq + 1).trim() + "' is not a whole number", ex);
            }
            result = result.with(param, value);
        }
        return result;
    }

    /**
     * @param param a parameter.
     * @param value its new value.
     * @return a copy with that value.
     * @throws IllegalArgumentException when the value is outside the parameter's range.
     */
    public CongestionControl with(final Param param, final long value)
    {
        if (value < param.min || value > param.max)
        {
            throw new IllegalArgumentException("congestion control parameter " + param.text + " = " + value +
                " is outside " + param.min + ".." + param.max + " " + param.unit);
        }
        final long[] copy = values.clone();
        copy[param.ordinal()] = value;
        return new CongestionControl(mode, copy);
    }

    /**
     * @param newMode the mode.
     * @return a copy in that mode, with the same parameters.
     */
    public CongestionControl mode(final Mode newMode)
    {
        return new CongestionControl(newMode, values);
    }

    /**
     * @return the mode.
     */
    public Mode mode()
    {
        return mode;
    }

    /**
     * @return true for DCQCN.
     */
    public boolean enabled()
    {
        return Mode.DCQCN == mode;
    }

    /**
     * @param param a parameter.
     * @return its value.
     */
    public long get(final Param param)
    {
        return values[param.ordinal()];
    }

    /**
     * @return the full rate of the port, bits per second ({@code line_rate}).
     */
    public long lineRateBps()
    {
        return get(Param.LINE_RATE) * 1_000_000L;
    }

    /**
     * @return the rate above which a QP is no longer limited, bits per second ({@code rpg_max_rate}, 0 meaning
     *     {@code line_rate}).
     */
    public long maxRateBps()
    {
        final long max = get(Param.RPG_MAX_RATE);
        return 0 == max ? lineRateBps() : Math.min(max * 1_000_000L, lineRateBps());
    }

    /**
     * @return the IPv4 TOS / IPv6 traffic class of CNPs: {@code cnp_dscp << 2 | cnp_ecn} (0xC2 by default).
     */
    public int cnpTrafficClass()
    {
        return (int)(get(Param.CNP_DSCP) << 2 | get(Param.CNP_ECN));
    }

    /**
     * @param trafficClass the traffic class the QP's address vector asks for.
     * @return what goes on the wire: with DCQCN the ECN bits become ECT(0), otherwise the value unchanged.
     */
    public int dataTrafficClass(final int trafficClass)
    {
        return enabled() ? (trafficClass & ~3) | ECN_ECT0 : trafficClass;
    }

    /**
     * @return every parameter with its value, in {@link Param} order.
     */
    public Map<String, Long> parameters()
    {
        final Map<String, Long> map = new LinkedHashMap<>();
        for (final Param p : Param.values())
        {
            map.put(p.text, values[p.ordinal()]);
        }
        return map;
    }

    /**
     * @return the text form {@link #parse(String)} reads back: {@code none}, or {@code dcqcn} with the parameters that
     *     differ from their defaults.
     */
    public String toString()
    {
        if (Mode.NONE == mode)
        {
            return "none";
        }
        final StringBuilder text = new StringBuilder("dcqcn");
        for (final Param p : Param.values())
        {
            if (values[p.ordinal()] != p.defaultValue)
            {
                text.append(',').append(p.text).append('=').append(values[p.ordinal()]);
            }
        }
        return text.toString();
    }

    /**
     * @return a help text listing every parameter with its unit and default, for {@code --help}.
     */
    public static String describeParameters()
    {
        final StringJoiner text = new StringJoiner(", ");
        for (final Param p : Param.values())
        {
            text.add(p.text + "=" + p.defaultValue + (p.unit.startsWith("0|") ? "" : " " + p.unit));
        }
        return text.toString();
    }
}
