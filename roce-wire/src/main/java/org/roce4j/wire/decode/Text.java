package org.roce4j.wire.decode;

import java.util.Locale;

import org.agrona.DirectBuffer;

/**
 * The decoder's output buffer for one frame: indented "Name: value" lines and hex formatting. Package private: the
 * decoder's own plumbing.
 */
final class Text
{
    private static final char[] HEX_DIGITS = "0123456789abcdef".toCharArray();
    private static final String INDENT = "    ";

    private final StringBuilder sb = new StringBuilder(4096);

    StringBuilder builder()
    {
        return sb;
    }

    void reset()
    {
        sb.setLength(0);
    }

    /**
     * A section title at column 0.
     */
    Text section(final String title)
    {
        sb.append(title).append('\n');
        return this;
    }

    /**
     * A sub-section title at the given depth.
     */
    Text section(final int depth, final String title)
    {
        indent(depth);
        sb.append(title).append('\n');
        return this;
    }

    /**
     * A field line at depth 1.
     */
    Text field(final String name, final String value)
    {
        return field(1, name, value);
    }

    /**
     * A field line at the given depth.
     */
    Text field(final int depth, final String name, final String value)
    {
        indent(depth);
        sb.append(name).append(": ").append(value).append('\n');
        return this;
    }

    /**
     * A field line whose value is a decimal number.
     */
    Text field(final int depth, final String name, final long value)
    {
        indent(depth);
        sb.append(name).append(": ").append(value).append('\n');
        return this;
    }

    /**
     * A field line holding a flag as 0 or 1.
     */
    Text flag(final int depth, final String name, final boolean value)
    {
        indent(depth);
        sb.append(name).append(": ").append(value ? '1' : '0').append('\n');
        return this;
    }

    private void indent(final int depth)
    {
        for (int i = 0; i < depth; i++)
        {
            sb.append(INDENT);
        }
    }

    /**
     * @return {@code 0x} and the low {@code digits} hex digits of the value.
     */
    static String hex(final long value, final int digits)
    {
        final char[] chars = new char[digits + 2];
        chars[0] = '0';
        chars[1] = 'x';
        for (int i = 0; i < digits; i++)
        {
            chars[digits + 1 - i] = HEX_DIGITS[(int)(value >>> (4 * i)) & 0xF];
        }
        return new String(chars);
    }

    /**
     * @return the bytes as space-separated hex pairs, at most {@code max} of them, with "..." when cut.
     */
    static String hexBytes(final DirectBuffer buffer, final int offset, final int length, final int max)
    {
        final int shown = Math.min(length, max);
        final StringBuilder out = new StringBuilder(shown * 3 + 4);
        for (int i = 0; i < shown; i++)
        {
            if (i > 0)
            {
                out.append(' ');
            }
            final int b = buffer.getByte(offset + i) & 0xFF;
            out.append(HEX_DIGITS[b >>> 4]).append(HEX_DIGITS[b & 0xF]);
        }
        if (length > shown)
        {
            out.append(" ...");
        }
        return out.toString();
    }

    /**
     * @return true when every byte of the range is zero.
     */
    static boolean allZero(final DirectBuffer buffer, final int offset, final int length)
    {
        for (int i = 0; i < length; i++)
        {
            if (0 != buffer.getByte(offset + i))
            {
                return false;
            }
        }
        return true;
    }

    /**
     * A duration for humans: "0.64 ms", "4.29 s", "16.38 us".
     */
    static String duration(final long nanos)
    {
        if (nanos >= 1_000_000_000L)
        {
            return String.format(Locale.ROOT, "%.2f s", nanos / 1e9);
        }
        if (nanos >= 1_000_000L)
        {
            return String.format(Locale.ROOT, "%.2f ms", nanos / 1e6);
        }
        return String.format(Locale.ROOT, "%.2f us", nanos / 1e3);
    }

    /**
     * Append a hex dump in the style of {@code tshark -x}: offset, 16 hex bytes, printable ASCII.
     */
    static void hexDump(final StringBuilder out, final DirectBuffer buffer, final int offset, final int length)
    {
        for (int line = 0; line < length; line += 16)
        {
            final int n = Math.min(16, length - line);
            for (int shift = 12; shift >= 0; shift -= 4)
            {
                out.append(HEX_DIGITS[(line >>> shift) & 0xF]);
            }
            out.append("  ");
            for (int i = 0; i < 16; i++)
            {
                if (i < n)
                {
                    final int b = buffer.getByte(offset + line + i) & 0xFF;
                    out.append(HEX_DIGITS[b >>> 4]).append(HEX_DIGITS[b & 0xF]).append(' ');
                }
                else
                {
                    out.append("   ");
                }
                if (7 == i)
                {
                    out.append(' ');
                }
            }
            out.append("  ");
            for (int i = 0; i < n; i++)
            {
                final int b = buffer.getByte(offset + line + i) & 0xFF;
                out.append(b >= 0x20 && b < 0x7F ? (char)b : '.');
            }
            out.append('\n');
        }
    }
}
