package org.roce4j.transport.link.udp;

import java.io.IOException;
import java.io.InputStream;

import org.agrona.MutableDirectBuffer;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.wire.FrameSeal;
import org.roce4j.wire.header.EthernetHeader;
import org.roce4j.wire.header.Ipv4Header;

import static java.nio.ByteOrder.BIG_ENDIAN;

/**
 * A RoCEv2 echo peer for cross-namespace tests, run in a child JVM by {@code NetnsProcess}: opens a
 * {@link UdpLink}, prints {@code READY}, sends every frame it receives back to its sender (addresses swapped,
 * through the link, so the kernel-header rewrite and ICRC fix-up apply), and after the given number of frames
 * prints {@code DONE received=N sent=M} and exits. Exits also when its standard input closes or after 60 s.
 */
public final class UdpEchoPeer
{
    private static final long LIFETIME_NS = 60_000_000_000L;
    private static final FrameSeal SEAL = new FrameSeal();

    private UdpEchoPeer()
    {
    }

    /**
     * @param args link spec, frames to echo.
     */
    public static void main(final String[] args)
    {
        final String spec = args[0];
        final int count = Integer.parseInt(args[1]);
        final Thread watchdog = new Thread(() ->
        {
            try
            {
                final InputStream in = System.in;
                while (in.read() >= 0)
                {
                    Thread.onSpinWait();
                }
            }
            catch (final IOException ex)
            {
                // Parent gone.
            }
            System.exit(3);
        }, "stdin-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();

        try (UdpLink link = UdpLink.open(spec))
        {
            System.out.println("READY " + link.name());
            System.out.flush();
            final int[] echoed = {0};
            final long deadline = System.nanoTime() + LIFETIME_NS;
            while (echoed[0] < count && System.nanoTime() - deadline < 0)
            {
                link.poll((buffer, offset, length) -> echo(link, buffer, offset, length, echoed), 64);
                link.flush();
            }
            link.flush();
            System.out.println("DONE received=" + link.counters().get(LinkCounter.FRAMES_RECEIVED) + " sent=" +
                link.counters().get(LinkCounter.FRAMES_SENT));
            System.out.flush();
        }
        System.exit(0);
    }

    private static void echo(
        final UdpLink link, final MutableDirectBuffer buffer, final int offset, final int length, final int[] echoed)
    {
        final int ip = offset + EthernetHeader.LENGTH;
        final int source = buffer.getInt(ip + Ipv4Header.SOURCE_OFFSET, BIG_ENDIAN);
        final int destination = buffer.getInt(ip + Ipv4Header.DESTINATION_OFFSET, BIG_ENDIAN);
        buffer.putInt(ip + Ipv4Header.SOURCE_OFFSET, destination, BIG_ENDIAN);
        buffer.putInt(ip + Ipv4Header.DESTINATION_OFFSET, source, BIG_ENDIAN);
        // The addresses are covered by the ICRC: a frame handed to a link must carry the ICRC of its own headers.
        SEAL.resealFrame(buffer, offset, length);
        while (!link.send(buffer, offset, length))
        {
            link.flush();
        }
        echoed[0]++;
    }
}
