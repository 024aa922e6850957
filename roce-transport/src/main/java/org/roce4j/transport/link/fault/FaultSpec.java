package org.roce4j.transport.link.fault;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

import org.roce4j.wire.Opcode;
import org.roce4j.wire.Operation;
import org.roce4j.wire.Psn;
import org.roce4j.wire.Transport;
import org.roce4j.wire.header.BthHeader;

/**
 * The {@code --faults} grammar, parsed into the rules of a {@link FaultyLink}: rules separated by {@code ;}, each
 * one action and its options separated by {@code ,}; {@code seed=N} is a rule of its own.
 * <pre>
 * RULES   := RULE ( ';' RULE )*
 * RULE    := 'seed=' N | ACTION ( ',' OPTION )*           (the action may stand anywhere among the options)
 * ACTION  := drop=P | dup=P | reorder=P | corrupt=P | ecn=P | delay=MS
 * OPTION  := dir=tx|rx                 one direction (default: a copy of the rule for each)
 *          | opcode=NAME[|NAME]...     BTH opcodes, e.g. RC_SEND_ONLY, or numbers such as 0x11
 *          | op=NAME[|NAME]...         operation classes: send, write, read, read_response, ack, atomic_ack,
 *                                      cmp_swap, fetch_add, flush, atomic_write, cnp
 *          | transport=rc|uc|ud|cnp    transport class of the opcode
 *          | qpn=N                     BTH destination QP
 *          | psn=N | psn=N-M           BTH PSN, or a range in 24-bit serial order
 *          | every=N                   only every N-th matching frame
 *          | p=P                       probability (for delay, whose value is milliseconds; 1 by default)
 *          | times=N                   at most N frames, then the rule is spent
 *          | skip=N                    let the first N matching frames through
 *          | by=N                      reorder: the frame goes out after N later frames (default 1)
 * P := a probability 0..1;  MS := milliseconds (decimals allowed);  N := a number (0x... for hex)
 * </pre>
 * Actions: {@code drop} loses the frame; {@code dup} sends it twice; {@code reorder} holds it back behind later
 * frames (at most 1 ms); {@code corrupt} flips one payload bit so the ICRC goes bad (a receiver that cannot check
 * ICRCs, the udp link, drops it as the NIC before it would have); {@code ecn} marks it Congestion Experienced in the IP
 * header and fixes the IPv4 checksum, leaving the ICRC valid as a switch would; {@code delay} holds it for MS
 * milliseconds. A frame gets at most one rule's action: the first rule, in the order given, that matches and draws
 * it. The draws come from the seed ({@code seed=N}, {@link #DEFAULT_SEED} without one), so a run repeats exactly.
 * Examples: {@code drop=0.02;reorder=0.01,dir=rx;seed=7}, {@code drop=1,op=ack,times=3},
 * {@code corrupt=0.5,opcode=RC_SEND_FIRST|RC_SEND_MIDDLE,dir=tx}, {@code delay=5,p=0.1}, {@code ecn=1,every=10}.
 *
 * <p>Errors name the rule and the token at fault: {@code --faults 'drop=2': rule 1 'drop=2': drop=2: the
 * probability must be between 0 and 1}.
 *
 * @param text   the rules as given.
 * @param seed   of the random streams.
 * @param tx     rules applied to frames sent, in order.
 * @param rx     rules applied to frames received, in order.
 */
public record FaultSpec(String text, long seed, List<Supplier<FaultRule>> tx, List<Supplier<FaultRule>> rx)
{
    /** Seed when the rules give none: fixed, so a run without {@code seed=N} repeats too. */
    public static final long DEFAULT_SEED = 1L;
    /** The grammar in one line, for help texts. */
    public static final String SUMMARY = "rules separated by ';', options by ','; actions drop=P dup=P reorder=P " +
        "corrupt=P ecn=P delay=MS; options dir=tx|rx opcode=NAME op=CLASS transport=rc|uc|ud qpn=N psn=N[-M] " +
        "every=N p=P times=N skip=N by=N; seed=N as its own rule";

    private static final Map<String, Operation> OPERATIONS = Map.ofEntries(
        Map.entry("send", Operation.SEND),
        Map.entry("write", Operation.RDMA_WRITE),
        Map.entry("read", Operation.RDMA_READ_REQUEST),
        Map.entry("read_response", Operation.RDMA_READ_RESPONSE),
        Map.entry("ack", Operation.ACKNOWLEDGE),
        Map.entry("atomic_ack", Operation.ATOMIC_ACKNOWLEDGE),
        Map.entry("cmp_swap", Operation.COMPARE_SWAP),
        Map.entry("fetch_add", Operation.FETCH_ADD),
        Map.entry("flush", Operation.FLUSH),
        Map.entry("atomic_write", Operation.ATOMIC_WRITE),
        Map.entry("cnp", Operation.CONGESTION_NOTIFICATION));
    private static final List<String> ACTIONS = List.of("drop", "dup", "reorder", "corrupt", "ecn", "delay");

    /**
     * Parse rules.
     *
     * @param text such as {@code drop=0.02;reorder=0.01,dir=rx;seed=7}.
     * @return the parsed rules; each call of a rule's supplier makes a fresh, uninstalled rule.
     * @throws IllegalArgumentException naming the rule and the token at fault.
     */
    public static FaultSpec parse(final String text)
    {
        if (null == text || text.isBlank())
        {
            throw new IllegalArgumentException("--faults needs at least one rule, e.g. 'drop=0.02;seed=7' (" +
                SUMMARY + ")");
        }
        final String[] rules = text.split(";", -1);
        long seed = DEFAULT_SEED;
        boolean seedGiven = false;
        final List<Supplier<FaultRule>> tx = new ArrayList<>();
        final List<Supplier<FaultRule>> rx = new ArrayList<>();
        for (int i = 0; i < rules.length; i++)
        {
            final String rule = rules[i].trim();
            final String where = "--faults '" + text + "': rule " + (i + 1) + " '" + rule + "': ";
            if (rule.isEmpty())
            {
                throw new IllegalArgumentException(where + "empty rule (two ';' in a row, or one at an end)");
            }
            if (rule.toLowerCase(Locale.ROOT).startsWith("seed="))
            {
                if (rule.indexOf(',') >= 0)
                {
                    throw new IllegalArgumentException(where + "seed=N is a rule of its own, without options");
                }
                if (seedGiven)
                {
                    throw new IllegalArgumentException(where + "seed given twice");
                }
                seed = parseLong(where, rule, rule.substring("seed=".length()));
                seedGiven = true;
                continue;
            }
            final RuleText parsed = RuleText.parse(where, rule);
            if (!"rx".equals(parsed.direction))
            {
                tx.add(parsed::build);
            }
            if (!"tx".equals(parsed.direction))
            {
                rx.add(parsed::build);
            }
        }
        if (tx.isEmpty() && rx.isEmpty())
        {
            throw new IllegalArgumentException("--faults '" + text + "': no fault rule, only a seed (" + SUMMARY +
                ")");
        }
        return new FaultSpec(text, seed, List.copyOf(tx), List.copyOf(rx));
    }

    /**
     * One rule's tokens, checked; {@link #build()} makes a fresh {@link FaultRule} from them.
     */
    private static final class RuleText
    {
        private final String where;
        private String action;
        private String actionToken;
        private double value;
        private String direction;
        private final List<Opcode> opcodes = new ArrayList<>();
        private final List<Operation> operations = new ArrayList<>();
        private final List<Transport> transports = new ArrayList<>();
        private int qpn = -1;
        private int psnFirst = -1;
        private int psnLast = -1;
        private long every = 1;
        private double probability = 1.0;
        private boolean probabilityGiven;
        private long times = FaultRule.UNLIMITED;
        private long skip;
        private int laterFrames = 1;
        private boolean byGiven;

        private RuleText(final String where)
        {
            this.where = where;
        }

        static RuleText parse(final String where, final String rule)
        {
            final RuleText parsed = new RuleText(where);
            final List<String> seen = new ArrayList<>();
            for (final String part : rule.split(",", -1))
            {
                final String token = part.trim();
                final int equals = token.indexOf('=');
                if (token.isEmpty())
                {
                    throw new IllegalArgumentException(where + "empty option (two ',' in a row, or one at an end)");
                }
                if (equals <= 0 || equals == token.length() - 1)
                {
                    throw new IllegalArgumentException(where + "'" + token + "' is not KEY=VALUE");
                }
                final String key = token.substring(0, equals).trim().toLowerCase(Locale.ROOT);
                final String value = token.substring(equals + 1).trim();
                if (seen.contains(key))
                {
                    throw new IllegalArgumentException(where + "'" + key + "' given twice");
                }
                seen.add(key);
                parsed.take(token, key, value);
            }
            if (null == parsed.action)
            {
                throw new IllegalArgumentException(where + "no action: a rule needs one of drop=P, dup=P, " +
                    "reorder=P, corrupt=P, ecn=P, delay=MS");
            }
            if (parsed.byGiven && !"reorder".equals(parsed.action))
            {
                throw new IllegalArgumentException(where + "by=N goes with reorder only");
            }
            if (parsed.probabilityGiven && !"delay".equals(parsed.action))
            {
                throw new IllegalArgumentException(where + "p=P goes with delay only; " + parsed.actionToken +
                    " already is the probability");
            }
            return parsed;
        }

        private void take(final String token, final String key, final String value)
        {
            if (ACTIONS.contains(key))
            {
                if (null != action)
                {
                    throw new IllegalArgumentException(where + "'" + token + "': a rule has one action and '" +
                        actionToken + "' came first; give each action a rule of its own, separated by ';'");
                }
                action = key;
                actionToken = token;
                value("delay".equals(key) ? parseMillis(token, value) : parseProbability(token, value));
                return;
            }
            switch (key)
            {
                case "dir":
                    if (!"tx".equalsIgnoreCase(value) && !"rx".equalsIgnoreCase(value))
                    {
                        throw new IllegalArgumentException(where + "'" + token + "': dir is tx or rx");
                    }
                    direction = value.toLowerCase(Locale.ROOT);
                    break;
                case "opcode":
                    for (final String name : value.split("\\|", -1))
                    {
                        opcodes.add(opcode(token, name.trim()));
                    }
                    break;
                case "op":
                    for (final String name : value.split("\\|", -1))
                    {
                        final Operation operation = OPERATIONS.get(name.trim().toLowerCase(Locale.ROOT));
                        if (null == operation)
                        {
                            throw new IllegalArgumentException(where + "'" + token + "': unknown operation class '" +
                                name.trim() + "' (known: " + String.join(", ", OPERATIONS.keySet().stream().sorted()
                                .toList()) + ")");
                        }
                        operations.add(operation);
                    }
                    break;
                case "transport":
                    for (final String name : value.split("\\|", -1))
                    {
                        transports.add(transport(token, name.trim()));
                    }
                    break;
                case "qpn":
                    qpn = (int)parseRange(token, value, 0, BthHeader.MASK_24);
                    break;
                case "psn":
                    psn(token, value);
                    break;
                case "every":
                    every = parseRange(token, value, 1, Long.MAX_VALUE);
                    break;
                case "p":
                    probability = parseProbability(token, value);
                    probabilityGiven = true;
                    break;
                case "times":
                    times = parseRange(token, value, 1, Long.MAX_VALUE);
                    break;
                case "skip":
                    skip = parseRange(token, value, 0, Long.MAX_VALUE);
                    break;
                case "by":
                    laterFrames = (int)parseRange(token, value, 1, 1024);
                    byGiven = true;
                    break;
                default:
                    throw new IllegalArgumentException(where + "'" + token + "': unknown option '" + key + "' " +
                        "(actions: drop, dup, reorder, corrupt, ecn, delay; options: dir, opcode, op, transport, " +
                        "qpn, psn, every, p, times, skip, by)");
            }
        }

        private void value(final double parsed)
        {
            value = parsed;
        }

        FaultRule build()
        {
            final FaultRule rule;
            switch (action)
            {
                case "drop":
                    rule = FaultRule.drop().probability(value);
                    break;
                case "dup":
                    rule = FaultRule.duplicate().probability(value);
                    break;
                case "reorder":
                    rule = FaultRule.reorder(laterFrames).probability(value);
                    break;
                case "corrupt":
                    rule = FaultRule.corruptPayload().probability(value);
                    break;
                case "ecn":
                    rule = FaultRule.ecn().probability(value);
                    break;
                default:
                    rule = FaultRule.delay(Math.max(1L, Math.round(value * 1_000_000.0))).probability(probability);
                    break;
            }
            if (!opcodes.isEmpty())
            {
                rule.opcode(opcodes.toArray(new Opcode[0]));
            }
            if (!operations.isEmpty())
            {
                rule.operation(operations.toArray(new Operation[0]));
            }
            if (!transports.isEmpty())
            {
                rule.transport(transports.toArray(new Transport[0]));
            }
            if (qpn >= 0)
            {
                rule.destQp(qpn);
            }
            if (psnFirst >= 0)
            {
                rule.psnRange(psnFirst, psnLast);
            }
            rule.every(every).skip(skip);
            if (FaultRule.UNLIMITED != times)
            {
                rule.times(times);
            }
            return rule;
        }

        private Opcode opcode(final String token, final String name)
        {
            Opcode found = null;
            if (name.toLowerCase(Locale.ROOT).startsWith("0x") || Character.isDigit(name.isEmpty() ? 'x' :
                name.charAt(0)))
            {
                found = Opcode.of((int)parseRange(token, name, 0, 0xFF));
            }
            else
            {
                for (final Opcode opcode : Opcode.values())
                {
                    if (opcode.name().equalsIgnoreCase(name))
                    {
                        found = opcode;
                    }
                }
            }
            if (null == found)
            {
                throw new IllegalArgumentException(where + "'" + token + "': unknown opcode '" + name + "' (names " +
                    "as in the opcode table, e.g. RC_SEND_ONLY, RC_ACKNOWLEDGE, UD_SEND_ONLY, or 0x00..0xff)");
            }
            return found;
        }

        private Transport transport(final String token, final String name)
        {
            for (final Transport transport : Transport.values())
            {
                if (transport.name().equalsIgnoreCase(name))
                {
                    return transport;
                }
            }
            throw new IllegalArgumentException(where + "'" + token + "': transport is rc, uc, ud or cnp");
        }

        private void psn(final String token, final String value)
        {
            final int dash = value.indexOf('-');
            psnFirst = (int)parseRange(token, -1 == dash ? value : value.substring(0, dash).trim(), 0, Psn.MASK);
            psnLast = -1 == dash ? psnFirst : (int)parseRange(token, value.substring(dash + 1).trim(), 0, Psn.MASK);
            if (Psn.compare(psnFirst, psnLast) > 0)
            {
                throw new IllegalArgumentException(where + "'" + token + "': the PSN range ends before it starts");
            }
        }

        private double parseProbability(final String token, final String value)
        {
            final double parsed;
            try
            {
                parsed = Double.parseDouble(value);
            }
            catch (final NumberFormatException ex)
            {
                throw new IllegalArgumentException(where + "'" + token + "': '" + value + "' is not a number");
            }
            if (!(parsed >= 0.0 && parsed <= 1.0))
            {
                throw new IllegalArgumentException(where + "'" + token + "': the probability must be between 0 " +
                    "and 1");
            }
            return parsed;
        }

        private double parseMillis(final String token, final String value)
        {
            final double parsed;
            try
            {
                parsed = Double.parseDouble(value);
            }
            catch (final NumberFormatException ex)
            {
                throw new IllegalArgumentException(where + "'" + token + "': '" + value + "' is not a number of " +
                    "milliseconds");
            }
            if (!(parsed > 0.0 && parsed <= 60_000.0))
            {
                throw new IllegalArgumentException(where + "'" + token + "': a delay is more than 0 and at most " +
                    "60000 ms");
            }
            return parsed;
        }

        private long parseRange(final String token, final String value, final long min, final long max)
        {
            final long parsed = parseLong(where, token, value);
            if (parsed < min || parsed > max)
            {
                throw new IllegalArgumentException(where + "'" + token + "': " + value + " is out of range " + min +
                    ".." + max);
            }
            return parsed;
        }
    }

    private static long parseLong(final String where, final String token, final String value)
    {
        try
        {
            return Long.decode(value.trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException(where + "'" + token + "': '" + value + "' is not a number");
        }
    }
}
