package org.roce4j.bench.suite;

import java.util.Locale;

/**
 * A minimal streaming JSON writer (RFC 8259): objects, arrays, strings, numbers, booleans. Callers nest calls in
 * the JSON's order; commas are placed automatically. Non-finite numbers are written as null.
 */
final class JsonWriter
{
    private final StringBuilder out = new StringBuilder();
    private boolean needComma;

    JsonWriter beginObject()
    {
        comma();
        out.append('{');
        needComma = false;
        return this;
    }

    JsonWriter endObject()
    {
        out.append('}');
        needComma = true;
        return this;
    }

    JsonWriter beginArray()
    {
        comma();
        out.append('[');
        needComma = false;
        return this;
    }

    JsonWriter endArray()
    {
        out.append(']');
        needComma = true;
        return this;
    }

    JsonWriter name(final String name)
    {
        comma();
        string(name);
        out.append(':');
        needComma = false;
        return this;
    }

    JsonWriter value(final String value)
    {
        comma();
        if (null == value)
        {
            out.append("null");
        }
        else
        {
            string(value);
        }
        needComma = true;
        return this;
    }

    JsonWriter value(final double value)
    {
        comma();
        if (Double.isFinite(value))
        {
            // Double.toString gives "12.5", "1.0E9": both valid JSON numbers.
            out.append(value);
        }
        else
        {
            out.append("null");
        }
        needComma = true;
        return this;
    }

    JsonWriter value(final long value)
    {
        comma();
        out.append(value);
        needComma = true;
        return this;
    }

    JsonWriter field(final String name, final String value)
    {
        return name(name).value(value);
    }

    JsonWriter field(final String name, final double value)
    {
        return name(name).value(value);
    }

    JsonWriter field(final String name, final long value)
    {
        return name(name).value(value);
    }

    private void comma()
    {
        if (needComma)
        {
            out.append(',');
        }
    }

    private void string(final String value)
    {
        out.append('"');
        for (int i = 0; i < value.length(); i++)
        {
            final char c = value.charAt(i);
            switch (c)
            {
                case '"':
                    out.append("\\\"");
                    break;
                case '\\':
                    out.append("\\\\");
                    break;
                case '\n':
                    out.append("\\n");
                    break;
                case '\r':
                    out.append("\\r");
                    break;
                case '\t':
                    out.append("\\t");
                    break;
                default:
                    if (c < 0x20)
                    {
                        out.append(String.format(Locale.ROOT, "\\u%04x", (int)c));
                    }
                    else
                    {
                        out.append(c);
                    }
                    break;
            }
        }
        out.append('"');
    }

    public String toString()
    {
        return out.toString();
    }
}
