package org.roce4j.wire.test;

import java.util.HexFormat;

/**
 * Hex dumps written in tests as text: whitespace, colons and line breaks are ignored, so a test can copy the layout
 * of a packet diagram ({@code "81 00 ff ff  40 00 01 18"}).
 */
public final class Hex
{
    private static final HexFormat FORMAT = HexFormat.of();

    private Hex()
    {
    }

    /**
     * @param text hex digits, any whitespace or ':' between them.
     * @return the bytes.
     * @throws IllegalArgumentException naming the text when it has an odd number of digits or a non-hex character.
     */
    public static byte[] bytes(final String text)
    {
        final String digits = text.replaceAll("[\\s:]", "");
        try
        {
            return FORMAT.parseHex(digits);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException("bad hex in test data: '" + text + "'", ex);
        }
    }

    /**
     * @param bytes to format.
     * @return lower-case hex digits, no separators.
     */
    public static String of(final byte[] bytes)
    {
        return FORMAT.formatHex(bytes);
    }
}
