package org.roce4j.transport.link.fault;

import java.util.Objects;

import org.roce4j.wire.Opcode;
import org.roce4j.wire.Operation;
import org.roce4j.wire.Psn;
import org.roce4j.wire.Transport;
import org.roce4j.wire.header.BthHeader;
import org.roce4j.wire.header.Ipv4Header;

/**
 * The predicate of a {@link FaultRule}: BTH opcode, operation, transport, DestQP and PSN range, the destination
 * address and a window on the fabric clock, combined with AND. A filter without matchers matches every frame; any BTH
 * matcher matches RoCEv2 frames only. Matching reads the {@link FrameView} and allocates nothing. The rule guards
 * mutability; the filter only validates the values.
 */
final class FrameFilter
{
    private static final int NO_VALUE = -1;
    /** 256 opcodes, one bit each, in 64-bit words. */
    private static final int OPCODE_WORDS = 4;

    private final long[] opcodes = new long[OPCODE_WORDS];
    private boolean anyOpcode = true;
    private int operationMask;
    private int transportMask;
    private int destQp = NO_VALUE;
    private int psnFirst = NO_VALUE;
    private int psnLast = NO_VALUE;
    private boolean hasDestination;
    private int destinationIpv4;
    private boolean hasWindow;
    private boolean windowRelative;
    private long windowStartNs;
    private long windowEndNs;
    private boolean matchesBth;
    private FrameMatcher matcher;

    void opcodes(final Opcode... values)
    {
        if (0 == values.length)
        {
            throw new IllegalArgumentException("opcode() needs at least one opcode");
        }
        for (final Opcode opcode : values)
        {
            opcodes[opcode.code() >>> 6] |= 1L << (opcode.code() & 63);
        }
        anyOpcode = false;
    }

    void operations(final Operation... values)
    {
        if (0 == values.length)
        {
            throw new IllegalArgumentException("operation() needs at least one operation");
        }
        for (final Operation operation : values)
        {
            operationMask |= 1 << operation.ordinal();
        }
    }

    void transports(final Transport... values)
    {
        if (0 == values.length)
        {
            throw new IllegalArgumentException("transport() needs at least one transport");
        }
        for (final Transport transport : values)
        {
            transportMask |= 1 << transport.ordinal();
        }
    }

    void destQp(final int qpn)
    {
        if (0 != (qpn & ~BthHeader.MASK_24))
        {
            throw new IllegalArgumentException("qpn is 24 bits: 0x" + Integer.toHexString(qpn));
        }
        destQp = qpn;
    }

    void psnRange(final int first, final int last)
    {
        if (0 != (first & ~Psn.MASK) || 0 != (last & ~Psn.MASK))
        {
            throw new IllegalArgumentException("PSNs are 24 bits: " + first + ".." + last);
        }
        if (Psn.compare(first, last) > 0)
        {
            throw new IllegalArgumentException("PSN range ends before it starts: " + first + ".." + last);
        }
        psnFirst = first;
        psnLast = last;
    }

    void matcher(final FrameMatcher value)
    {
        if (null != matcher)
        {
            throw new IllegalArgumentException("a rule has one matcher of its own");
        }
        matcher = Objects.requireNonNull(value, "matcher");
    }

    void destination(final int ipv4)
    {
        hasDestination = true;
        destinationIpv4 = ipv4;
    }

    void window(final long startNs, final long endNs)
    {
        if (endNs - startNs <= 0)
        {
            throw new IllegalArgumentException("window ends before it starts: " + startNs + ".." + endNs);
        }
        hasWindow = true;
        windowRelative = false;
        windowStartNs = startNs;
        windowEndNs = endNs;
    }

    void forNs(final long durationNs)
    {
        if (durationNs < 1)
        {
            throw new IllegalArgumentException("durationNs must be at least 1: " + durationNs);
        }
        hasWindow = true;
        windowRelative = true;
        windowStartNs = 0;
        windowEndNs = durationNs;
    }

    /**
     * @return true when matching needs the fabric clock.
     */
    boolean hasWindow()
    {
        return hasWindow;
    }

    /**
     * Fix the configuration when the rule is installed.
     *
     * @param nowNs clock time, which starts a relative window.
     */
    void install(final long nowNs)
    {
        if (windowRelative)
        {
            windowStartNs = nowNs;
            windowEndNs = nowNs + windowEndNs;
            windowRelative = false;
        }
        matchesBth = !anyOpcode || 0 != operationMask || 0 != transportMask || NO_VALUE != destQp ||
            NO_VALUE != psnFirst;
    }

    /**
     * @param frame       the frame's fields.
     * @param destination IPv4 address the frame goes to, or 0.
     * @param nowNs       clock time (only read when there is a window).
     * @return true when every matcher matches.
     */
    boolean matches(final FrameView frame, final int destination, final long nowNs)
    {
        if (hasDestination && destinationIpv4 != destination)
        {
            return false;
        }
        if (hasWindow && (nowNs - windowStartNs < 0 || nowNs - windowEndNs >= 0))
        {
            return false;
        }
        if (matchesBth && !matchesBth(frame))
        {
            return false;
        }
        return null == matcher || matcher.matches(frame);
    }

    private boolean matchesBth(final FrameView frame)
    {
        if (!frame.isRoce())
        {
            return false;
        }
        final int code = frame.opcode();
        if (!anyOpcode && 0 == (opcodes[code >>> 6] & (1L << (code & 63))))
        {
            return false;
        }
        if (0 != operationMask || 0 != transportMask)
        {
            final Opcode opcode = Opcode.of(code);
            if (null == opcode ||
                (0 != operationMask && 0 == (operationMask & (1 << opcode.operation().ordinal()))) ||
                (0 != transportMask && 0 == (transportMask & (1 << opcode.transport().ordinal()))))
            {
                return false;
            }
        }
        if (NO_VALUE != destQp && destQp != frame.destQp())
        {
            return false;
        }
        return NO_VALUE == psnFirst || Psn.inRange(frame.psn(), psnFirst, psnLast);
    }

    /**
     * Append the matchers, e.g. {@code " opcode=[RC_ACKNOWLEDGE] qpn=0x11 psn=5"}.
     *
     * @param sb to append to.
     */
    void appendTo(final StringBuilder sb)
    {
        if (!anyOpcode)
        {
            sb.append(" opcode=[");
            String separator = "";
            for (final Opcode opcode : Opcode.values())
            {
                if (0 != (opcodes[opcode.code() >>> 6] & (1L << (opcode.code() & 63))))
                {
                    sb.append(separator).append(opcode.name());
                    separator = ",";
                }
            }
            sb.append(']');
        }
        appendMask(sb, " operation=", operationMask, Operation.values());
        appendMask(sb, " transport=", transportMask, Transport.values());
        if (NO_VALUE != destQp)
        {
            sb.append(" qpn=0x").append(Integer.toHexString(destQp));
        }
        if (NO_VALUE != psnFirst)
        {
            sb.append(" psn=").append(psnFirst);
            if (psnLast != psnFirst)
            {
                sb.append("..").append(psnLast);
            }
        }
        if (hasDestination)
        {
            sb.append(" to=").append(Ipv4Header.addressToString(destinationIpv4));
        }
        if (null != matcher)
        {
            sb.append(" matcher");
        }
        if (hasWindow)
        {
            sb.append(windowRelative ? " forNs=" + windowEndNs : " window=" + windowStartNs + ".." + windowEndNs);
        }
    }

    private static void appendMask(final StringBuilder sb, final String label, final int mask, final Enum<?>[] keys)
    {
        if (0 != mask)
        {
            sb.append(label).append('[');
            String separator = "";
            for (final Enum<?> key : keys)
            {
                if (0 != (mask & (1 << key.ordinal())))
                {
                    sb.append(separator).append(key.name());
                    separator = ",";
                }
            }
            sb.append(']');
        }
    }
}
