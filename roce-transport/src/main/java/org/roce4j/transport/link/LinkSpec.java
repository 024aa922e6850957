package org.roce4j.transport.link;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import org.roce4j.transport.link.ethernet.NeighbourPolicy;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.addr.Mac;

/**
 * The one parser of link specs: {@code SCHEME:HEAD[,KEY=VALUE]...}, where the head is what the scheme needs first
 * (an address, an interface, the tunnel's endpoints) and the options follow, separated by commas. Every link's config
 * ({@code memory:}, {@code udp:}, {@code pcap:}, {@code tunnel:}) parses through it, so every spec reports problems the
 * same way: {@code <scheme> link spec '<spec>': <problem>; expected <grammar>}. Option keys are case-insensitive; an
 * option may be given once unless the scheme says it may repeat ({@code ip=}); an unknown option names the valid ones.
 */
public final class LinkSpec
{
    /** Options of the neighbour resolution policy, taken by every link with a layer 2 of its own. */
    public static final List<String> NEIGHBOUR_OPTIONS = List.of("arp-retries", "arp-interval-ms", "arp-queue",
        "neighbours");
    /** The grammar of {@link #NEIGHBOUR_OPTIONS}. */
    public static final String NEIGHBOUR_GRAMMAR = "[,arp-retries=10][,arp-interval-ms=500][,arp-queue=256]" +
        "[,neighbours=64]";

    private final String spec;
    private final String scheme;
    private final String grammar;
    private final String head;
    private final Map<String, List<String>> options;

    private LinkSpec(final String spec, final String scheme, final String grammar, final String head,
        final Map<String, List<String>> options)
    {
        this.spec = spec;
        this.scheme = scheme;
        this.grammar = grammar;
        this.head = head;
        this.options = options;
    }

    /**
     * Parse a spec.
     *
     * @param spec       the text, e.g. {@code pcap:veth0,ip=10.0.0.1,ip=fd00::1}.
     * @param scheme     what it must start with, without the colon (case-insensitive).
     * @param headName   what the head is, for the message when it is missing (e.g. {@code interface}).
     * @param grammar    the scheme's grammar, for messages.
     * @param known      every option key the scheme takes, in the order messages list them.
     * @param repeatable the keys that may be given more than once.
     * @return the parsed spec.
     * @throws IllegalArgumentException naming the spec and the part that is wrong.
     */
    public static LinkSpec parse(final String spec, final String scheme, final String headName, final String grammar,
        final List<String> known, final Set<String> repeatable)
    {
        if (null == spec)
        {
            throw new IllegalArgumentException(scheme + " link spec is null; expected " + grammar);
        }
        final String text = spec.trim();
        final String prefix = scheme + ":";
        if (!text.regionMatches(true, 0, prefix, 0, prefix.length()))
        {
            throw new IllegalArgumentException("not a " + scheme + " link spec: '" + spec + "'; expected " + grammar);
        }
        final String[] parts = text.substring(prefix.length()).split(",", -1);
        final Map<String, List<String>> options = new LinkedHashMap<>();
        final LinkSpec parsed = new LinkSpec(text, scheme, grammar, parts[0].trim(), options);
        if (parsed.head.isEmpty())
        {
            throw parsed.error("the spec has no " + headName);
        }
        for (int i = 1; i < parts.length; i++)
        {
            final String part = parts[i].trim();
            final int equals = part.indexOf('=');
            if (equals <= 0)
            {
                throw parsed.error("option '" + part + "' is not KEY=VALUE");
            }
            final String key = part.substring(0, equals).trim().toLowerCase(Locale.ROOT);
            final String value = part.substring(equals + 1).trim();
            if (!known.contains(key))
            {
                throw parsed.error("unknown option '" + key + "' (valid: " + String.join(", ", known) + ")");
            }
            if (value.isEmpty())
            {
                throw parsed.error("option '" + key + "' has no value");
            }
            final List<String> values = options.computeIfAbsent(key, k -> new ArrayList<>());
            if (!values.isEmpty() && !repeatable.contains(key))
            {
                throw parsed.error("option '" + key + "' given twice");
            }
            values.add(value);
        }
        return parsed;
    }

    /**
     * @return the spec as given, trimmed.
     */
    public String spec()
    {
        return spec;
    }

    /**
     * @return what follows {@code SCHEME:} up to the first comma.
     */
    public String head()
    {
        return head;
    }

    /**
     * @param key an option.
     * @return true when given.
     */
    public boolean has(final String key)
    {
        return options.containsKey(key);
    }

    /**
     * @param key an option.
     * @return its value, or null when not given.
     */
    public String option(final String key)
    {
        final List<String> values = options.get(key);
        return null == values ? null : values.get(0);
    }

    /**
     * @param key     an integer option.
     * @param absent  the value when not given.
     * @param min     smallest allowed.
     * @param max     largest allowed.
     * @return the value.
     * @throws IllegalArgumentException when it is not a number or out of range.
     */
    public int intOption(final String key, final int absent, final int min, final int max)
    {
        final String text = option(key);
        if (null == text)
        {
            return absent;
        }
        final int value;
        try
        {
            value = Integer.parseInt(text);
        }
        catch (final NumberFormatException ex)
        {
            throw error("option " + key + "='" + text + "' is not a number");
        }
        if (value < min || value > max)
        {
            throw error(key + " " + value + " is out of range " + min + ".." + max);
        }
        return value;
    }

    /**
     * @param key    a long option (decimal, or hex with 0x).
     * @param absent the value when not given.
     * @return the value.
     */
    public long longOption(final String key, final long absent)
    {
        final String text = option(key);
        if (null == text)
        {
            return absent;
        }
        try
        {
            return Long.decode(text);
        }
        catch (final NumberFormatException ex)
        {
            throw error("option '" + key + "' must be an integer, got '" + text + "'");
        }
    }

    /**
     * @param key a probability option, 0..1.
     * @return the value, 0 when not given.
     */
    public double fractionOption(final String key)
    {
        final String text = option(key);
        if (null == text)
        {
            return 0.0;
        }
        final double value;
        try
        {
            value = Double.parseDouble(text);
        }
        catch (final NumberFormatException ex)
        {
            throw error("option '" + key + "' must be a number, got '" + text + "'");
        }
        if (!(value >= 0.0 && value <= 1.0))
        {
            throw error("option '" + key + "' must be 0..1, got " + text);
        }
        return value;
    }

    /**
     * @param key a MAC option.
     * @return the unicast MAC, or {@link Mac#NONE} when not given.
     */
    public long macOption(final String key)
    {
        final String text = option(key);
        if (null == text)
        {
            return Mac.NONE;
        }
        try
        {
            return Mac.parseUnicast(key, text);
        }
        catch (final IllegalArgumentException ex)
        {
            throw error(ex.getMessage());
        }
    }

    /**
     * @param key a repeatable address option ({@code ip}).
     * @return every address given, IPv4 or IPv6 (IPv4 ones as their IPv4-mapped GIDs), in order.
     */
    public List<Gid> ipOptions(final String key)
    {
        final List<Gid> ips = new ArrayList<>();
        final List<String> values = options.get(key);
        if (null != values)
        {
            for (final String value : values)
            {
                ips.add(ip(value));
            }
        }
        return ips;
    }

    /**
     * @param text an IPv4 or IPv6 address, brackets allowed.
     * @return it as a GID.
     */
    public Gid ip(final String text)
    {
        try
        {
            return Gid.parse(text);
        }
        catch (final IllegalArgumentException ex)
        {
            throw error("'" + text + "' is not an IPv4 or IPv6 address");
        }
    }

    /**
     * The neighbour resolution policy from {@code arp-retries}, {@code arp-interval-ms}, {@code arp-queue} and
     * {@code neighbours}, defaults where not given.
     *
     * @return the policy.
     */
    public NeighbourPolicy neighbourPolicy()
    {
        final NeighbourPolicy d = NeighbourPolicy.DEFAULT;
        try
        {
            return new NeighbourPolicy(intOption("arp-retries", d.requests(), 1, 100),
                intOption("arp-interval-ms", d.intervalMs(), 1, 60_000), intOption("arp-queue", d.heldFrames(), 0,
                    4096),
                intOption("neighbours", d.neighbours(), 1, 4096));
        }
        catch (final IllegalArgumentException ex)
        {
            throw ex.getMessage().startsWith(scheme + " link spec") ? ex : error(ex.getMessage());
        }
    }

    /**
     * @param problem what is wrong.
     * @return an exception saying so about this spec, with the grammar.
     */
    public IllegalArgumentException error(final String problem)
    {
        return new IllegalArgumentException(scheme + " link spec '" + spec + "': " + problem + "; expected " +
            grammar);
    }
}
