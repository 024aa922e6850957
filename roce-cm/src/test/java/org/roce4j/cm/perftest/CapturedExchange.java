package org.roce4j.cm.perftest;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * One perftest 4.5+0.17 TCP exchange between two rxe guests, taken from
 * shared/vectors/rxe-pair-ibverbs-perftest-rping.pcap with
 * {@code tshark -Y 'tcp.port==P && tcp.len>0' -T fields -e ip.src -e tcp.payload}: one line per TCP segment,
 * {@code C} for the client (10.77.0.2), {@code S} for the server (10.77.0.3), then the payload in hex. Each segment
 * is exactly one of perftest's write() calls.
 */
final class CapturedExchange
{
    /** One write. */
    record Message(boolean fromClient, byte[] bytes)
    {
    }

    private final String name;
    private final List<Message> messages;

    private CapturedExchange(final String name, final List<Message> messages)
    {
        this.name = name;
        this.messages = messages;
    }

    /**
     * @param tool resource name without .txt, e.g. write_bw.
     * @return the exchange.
     * @throws IOException when the resource is missing or malformed.
     */
    static CapturedExchange load(final String tool) throws IOException
    {
        final List<Message> messages = new ArrayList<>();
        try (InputStream in = CapturedExchange.class.getResourceAsStream("/perftest/" + tool + ".txt"))
        {
            if (null == in)
            {
                throw new IOException("no resource /perftest/" + tool + ".txt");
            }
            final BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.US_ASCII));
            String line;
            while (null != (line = reader.readLine()))
            {
                final String[] parts = line.trim().split(" ");
                if (2 != parts.length || !("C".equals(parts[0]) || "S".equals(parts[0])))
                {
                    throw new IOException("bad line in " + tool + ": " + line);
                }
                messages.add(new Message("C".equals(parts[0]), HexFormat.of().parseHex(parts[1])));
            }
        }
        return new CapturedExchange(tool, messages);
    }

    String name()
    {
        return name;
    }

    List<Message> messages()
    {
        return messages;
    }

    /**
     * @param fromClient whose messages.
     * @param length     of this size.
     * @return those messages, in order.
     */
    List<byte[]> of(final boolean fromClient, final int length)
    {
        final List<byte[]> list = new ArrayList<>();
        for (final Message message : messages)
        {
            if (message.fromClient() == fromClient && message.bytes().length == length)
            {
                list.add(message.bytes());
            }
        }
        return list;
    }
}
