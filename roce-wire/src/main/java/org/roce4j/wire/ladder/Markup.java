package org.roce4j.wire.ladder;

/**
 * Escaping for text written into XML, SVG and HTML by hand: the one helper the ladder writer and the conform HTML
 * report share. Characters XML 1.0 forbids (C0 controls other than tab, newline and carriage return, lone
 * surrogates, U+FFFE and U+FFFF) become U+FFFD, so any string (a frame label, a checker's note, a scenario name
 * from a YAML file) yields a well-formed document.
 */
public final class Markup
{
    private Markup()
    {
    }

    /**
     * @param text any text.
     * @return the text with {@code & < > " '} escaped and characters XML cannot hold replaced; safe in element
     * content and in attribute values of either quote.
     */
    public static String escape(final String text)
    {
        final StringBuilder out = new StringBuilder(text.length() + 16);
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            switch (c)
            {
                case '&':
                    out.append("&amp;");
                    break;
                case '<':
                    out.append("&lt;");
                    break;
                case '>':
                    out.append("&gt;");
                    break;
                case '"':
                    out.append("&quot;");
                    break;
                case '\'':
                    out.append("&#39;");
                    break;
                default:
                    appendChecked(out, text, i, c);
                    if (Character.isHighSurrogate(c) && i + 1 < text.length() &&
                        Character.isLowSurrogate(text.charAt(i + 1)))
                    {
                        i++;
                    }
                    break;
            }
        }
        return out.toString();
    }

    private static void appendChecked(final StringBuilder out, final String text, final int i, final char c)
    {
        if (Character.isHighSurrogate(c))
        {
            if (i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1)))
            {
                out.append(c).append(text.charAt(i + 1));
            }
            else
            {
                out.append('\uFFFD');
            }
        }
        else if (Character.isLowSurrogate(c) || '\uFFFE' == c || '\uFFFF' == c ||
            (c < 0x20 && '\t' != c && '\n' != c && '\r' != c))
        {
            out.append('\uFFFD');
        }
        else
        {
            out.append(c);
        }
    }
}
