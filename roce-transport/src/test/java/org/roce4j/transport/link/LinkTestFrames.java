package org.roce4j.transport.link;

import java.util.function.BooleanSupplier;

import org.agrona.MutableDirectBuffer;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrameBuilder;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.header.DethHeader;

import static java.nio.ByteOrder.BIG_ENDIAN;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Builds numbered RoCEv2 frames straight into a link's send buffer and collects what a link delivers, for link
 * tests. A frame is a UD SEND_ONLY (BTH + DETH) whose payload starts with a 64-bit sequence number followed by a
 * pattern derived from it, so a receiver can check order and content without keeping the sent frames.
 */
public final class LinkTestFrames
{
    /** Smallest payload: the sequence number. */
    public static final int MIN_PAYLOAD = 8;
    /** Q_Key written into every DETH (any value: links do not look at it). */
    public static final int QKEY = 0x1111_1111;
    /** How long a helper waits for the medium before failing the test (a guard against hangs, not a timing). */
    public static final long PATIENCE_NS = 30_000_000_000L;

    /** Handler for frames a test does not look at. */
    public static final FrameHandler IGNORE = (buffer, offset, length) -> {};

    private final RoceFrameBuilder builder = new RoceFrameBuilder();

    private LinkTestFrames()
    {
    }

    /**
     * @return a builder for one sending thread.
     */
    public static LinkTestFrames create()
    {
        return new LinkTestFrames();
    }

    /**
     * Build and commit one frame; flushes and polls the receiver while the link pushes back.
     *
     * @param link          to send on.
     * @param receiver      polled while waiting for room (may be null).
     * @param collector     receives what the receiver delivers while waiting.
     * @param destination   link whose address the frame goes to.
     * @param sequence      sequence number in the payload.
     * @param destQp        BTH destination QP.
     * @param sourcePort    UDP source port.
     * @param payloadLength bytes of payload, at least {@link #MIN_PAYLOAD}.
     */
    public void send(
        final Link link,
        final Link receiver,
        final Collector collector,
        final Link destination,
        final long sequence,
        final int destQp,
        final int sourcePort,
        final int payloadLength)
    {
        send(link, receiver, collector, destination.address().ipv4(), sequence, destQp, sourcePort, payloadLength);
    }

    /**
     * Build and commit one frame to an IPv4 or IPv6 address, from the sending link's address of the same family
     * (its primary IPv4 address, or its first IPv6 one); flushes and polls the receiver while the link pushes back.
     *
     * @param link          to send on.
     * @param receiver      polled while waiting for room (may be null).
     * @param collector     receives what the receiver delivers while waiting.
     * @param destination   the address the frame goes to.
     * @param sequence      sequence number in the payload.
     * @param destQp        BTH destination QP.
     * @param sourcePort    UDP source port.
     * @param payloadLength bytes of payload, at least {@link #MIN_PAYLOAD}.
     */
    public void send(
        final Link link,
        final Link receiver,
        final Collector collector,
        final Gid destination,
        final long sequence,
        final int destQp,
        final int sourcePort,
        final int payloadLength)
    {
        if (destination.isIpv4Mapped())
        {
            send(link, receiver, collector, destination.ipv4(), sequence, destQp, sourcePort, payloadLength);
        }
        else
        {
            send(link, receiver, collector, link.address().primaryIpv6(), destination, sequence, destQp, sourcePort,
                payloadLength);
        }
    }

    /**
     * Build and commit one frame to an address; flushes and polls the receiver while the link pushes back.
     *
     * @param link          to send on.
     * @param receiver      polled while waiting for room (may be null).
     * @param collector     receives what the receiver delivers while waiting.
     * @param destination   IPv4 address the frame goes to.
     * @param sequence      sequence number in the payload.
     * @param destQp        BTH destination QP.
     * @param sourcePort    UDP source port.
     * @param payloadLength bytes of payload, at least {@link #MIN_PAYLOAD}.
     */
    public void send(
        final Link link,
        final Link receiver,
        final Collector collector,
        final int destination,
        final long sequence,
        final int destQp,
        final int sourcePort,
        final int payloadLength)
    {
        send(link, receiver, collector, Gid.ofIpv4(link.address().ipv4()), Gid.ofIpv4(destination), sequence, destQp,
            sourcePort, payloadLength);
    }

    private void send(
        final Link link,
        final Link receiver,
        final Collector collector,
        final Gid source,
        final Gid destination,
        final long sequence,
        final int destQp,
        final int sourcePort,
        final int payloadLength)
    {
        final int maxLength = 18 + 40 + 8 + 12 + DethHeader.LENGTH + payloadLength + 3 + 4;
        int index = link.tryClaim(maxLength);
        final long deadline = System.nanoTime() + PATIENCE_NS;
        while (index < 0)
        {
            link.flush();
            if (null != receiver)
            {
                receiver.poll(collector, 256);
            }
            link.poll(IGNORE, 256);
            if (System.nanoTime() - deadline > 0)
            {
                fail("link " + link.name() + " gave no room for " + PATIENCE_NS / 1_000_000_000L + " s; counters: " +
                    link.counters());
            }
            index = link.tryClaim(maxLength);
        }
        final MutableDirectBuffer buffer = link.sendBuffer();
        builder.wrap(buffer, index).ethernet(0L, link.address().mac());
        if (destination.isIpv4Mapped())
        {
            builder.ipv4(source.ipv4(), destination.ipv4());
        }
        else
        {
            builder.ipv6(source.high(), source.low(), destination.high(), destination.low());
            builder.ipv6Header().versionClassFlow(trafficClass(sequence), flowLabel(sequence));
        }
        builder.udp(sourcePort)
            .bth(Opcode.UD_SEND_ONLY, destQp, (int)sequence & 0xFF_FFFF);
        builder.deth().qkey(QKEY).srcQp(destQp);
        final int payload = builder.payloadOffset();
        buffer.putLong(payload, sequence, BIG_ENDIAN);
        for (int i = MIN_PAYLOAD; i < payloadLength; i++)
        {
            buffer.putByte(payload + i, patternByte(sequence, i));
        }
        builder.payloadLength(payloadLength);
        link.commit(index, builder.finish());
    }

    /**
     * @param sequence frame number.
     * @return the traffic class an IPv6 test frame carries: a DSCP from the sequence, ECN 0 (not CE).
     */
    public static int trafficClass(final long sequence)
    {
        return (int)(sequence * 4) & 0xFC;
    }

    /**
     * @param sequence frame number.
     * @return the flow label an IPv6 test frame carries, never 0 (rxe sends 0; links must carry any).
     */
    public static int flowLabel(final long sequence)
    {
        return 1 + (int)((sequence * 40_503L) % 0xFFFFE);
    }

    /**
     * @param sequence frame number.
     * @param position byte position in the payload.
     * @return the payload byte at that position.
     */
    public static byte patternByte(final long sequence, final int position)
    {
        return (byte)(sequence * 31 + position * 7);
    }

    /**
     * Poll until a condition holds; fails the test after {@link #PATIENCE_NS}.
     *
     * @param link      to poll.
     * @param collector handler.
     * @param done      the condition.
     * @param what      described in the failure message.
     */
    public static void pollUntil(final Link link, final Collector collector, final BooleanSupplier done,
        final String what)
    {
        pollUntil(link, collector, null, done, what);
    }

    /**
     * Poll until a condition holds, also polling and flushing a second link (the sender: a link that resolves
     * peers by ARP needs its receive side driven to see the replies); fails the test after {@link #PATIENCE_NS}.
     *
     * @param link      to poll.
     * @param collector handler.
     * @param other     also polled (frames it delivers are ignored) and flushed; may be null.
     * @param done      the condition.
     * @param what      described in the failure message.
     */
    public static void pollUntil(
        final Link link, final Collector collector, final Link other, final BooleanSupplier done, final String what)
    {
        final long deadline = System.nanoTime() + PATIENCE_NS;
        while (!done.getAsBoolean())
        {
            int work = link.poll(collector, 256);
            if (null != other)
            {
                work += other.poll(IGNORE, 256) + other.flush();
            }
            if (0 == work)
            {
                Thread.onSpinWait();
            }
            if (System.nanoTime() - deadline > 0)
            {
                fail("waited " + PATIENCE_NS / 1_000_000_000L + " s for " + what + " on " + link.name() +
                    "; received " + collector.count() + "; counters: " + link.counters());
            }
        }
    }

    /**
     * Records what a link delivers: parse status, sequence, QP, ports and addresses of every frame, and whether the
     * payload pattern was intact. Fixed capacity (addresses are kept as GIDs, allocated per frame: a test tool).
     */
    public static final class Collector implements FrameHandler
    {
        private final RoceFrameParser parser = new RoceFrameParser();
        private final boolean verifyIcrc;
        private final long[] sequences;
        private final int[] destQps;
        private final int[] sourcePorts;
        private final Gid[] sourceIps;
        private final Gid[] destinationIps;
        private final int[] payloadLengths;
        private int count;
        private int badStatus;
        private FrameStatus firstBadStatus;
        private int badPayload;
        private int overflow;
        private int nonZeroFlowLabels;
        private int classOrFlowChanged;

        /**
         * @param capacity   most frames recorded.
         * @param verifyIcrc parse with ICRC verification (use {@link Link#verifiesIcrc()}).
         */
        public Collector(final int capacity, final boolean verifyIcrc)
        {
            this.verifyIcrc = verifyIcrc;
            sequences = new long[capacity];
            destQps = new int[capacity];
            sourcePorts = new int[capacity];
            sourceIps = new Gid[capacity];
            destinationIps = new Gid[capacity];
            payloadLengths = new int[capacity];
        }

        /**
         * {@inheritDoc}
         */
        public void onFrame(final MutableDirectBuffer buffer, final int offset, final int length)
        {
            final FrameStatus status = parser.parse(buffer, offset, length, verifyIcrc);
            if (FrameStatus.OK != status || Opcode.UD_SEND_ONLY != parser.opcode() ||
                parser.payloadLength() < MIN_PAYLOAD)
            {
                if (0 == badStatus++)
                {
                    firstBadStatus = status;
                }
                return;
            }
            if (count == sequences.length)
            {
                overflow++;
                return;
            }
            final int payload = parser.payloadOffset();
            final long sequence = buffer.getLong(payload, BIG_ENDIAN);
            final int payloadLength = parser.payloadLength();
            for (int i = MIN_PAYLOAD; i < payloadLength; i++)
            {
                if (patternByte(sequence, i) != buffer.getByte(payload + i))
                {
                    badPayload++;
                    break;
                }
            }
            sequences[count] = sequence;
            destQps[count] = parser.bth().destQp();
            sourcePorts[count] = parser.udp().sourcePort();
            if (4 == parser.ipVersion())
            {
                sourceIps[count] = Gid.ofIpv4(parser.ipv4().source());
                destinationIps[count] = Gid.ofIpv4(parser.ipv4().destination());
            }
            else
            {
                nonZeroFlowLabels += 0 == parser.ipv6().flowLabel() ? 0 : 1;
                classOrFlowChanged += trafficClass(sequence) == parser.ipv6().trafficClass() &&
                    flowLabel(sequence) == parser.ipv6().flowLabel() ? 0 : 1;
                sourceIps[count] = new Gid(parser.ipv6().sourceHigh(), parser.ipv6().sourceLow());
                destinationIps[count] = new Gid(parser.ipv6().destinationHigh(), parser.ipv6().destinationLow());
            }
            payloadLengths[count] = payloadLength;
            count++;
        }

        /**
         * @return frames recorded.
         */
        public int count()
        {
            return count;
        }

        /**
         * @param i frame index.
         * @return its sequence number.
         */
        public long sequence(final int i)
        {
            return sequences[i];
        }

        /**
         * @param i frame index.
         * @return its destination QP.
         */
        public int destQp(final int i)
        {
            return destQps[i];
        }

        /**
         * @param i frame index.
         * @return its UDP source port.
         */
        public int sourcePort(final int i)
        {
            return sourcePorts[i];
        }

        /**
         * @param i frame index.
         * @return its IP source (IPv4 as IPv4-mapped).
         */
        public Gid sourceIp(final int i)
        {
            return sourceIps[i];
        }

        /**
         * @param i frame index.
         * @return its IP destination (IPv4 as IPv4-mapped).
         */
        public Gid destinationIp(final int i)
        {
            return destinationIps[i];
        }

        /**
         * @param i frame index.
         * @return its payload length.
         */
        public int payloadLength(final int i)
        {
            return payloadLengths[i];
        }

        /**
         * @return frames that did not parse as OK UD SEND_ONLY frames.
         */
        public int badStatus()
        {
            return badStatus;
        }

        /**
         * @return the first bad status seen, or null.
         */
        public FrameStatus firstBadStatus()
        {
            return firstBadStatus;
        }

        /**
         * @return frames whose payload pattern was damaged.
         */
        public int badPayload()
        {
            return badPayload;
        }

        /**
         * @return IPv6 frames whose traffic class or flow label was not what {@link #trafficClass(long)} and
         *         {@link #flowLabel(long)} give for their sequence number.
         */
        public int classOrFlowChanged()
        {
            return classOrFlowChanged;
        }

        /**
         * @return IPv6 frames whose flow label was not 0.
         */
        public int nonZeroFlowLabels()
        {
            return nonZeroFlowLabels;
        }

        /**
         * @return frames beyond capacity.
         */
        public int overflow()
        {
            return overflow;
        }
    }
}
