package org.roce4j.transport.link.memory;

import java.util.Arrays;
import java.util.List;

import org.agrona.BitUtil;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.link.fault.FaultInjector;
import org.roce4j.transport.link.fault.FaultRule;
import org.roce4j.transport.provider.EngineConfig;
import org.roce4j.wire.AgronaAccess;
import org.roce4j.wire.addr.Mac;

/**
 * An in-memory Ethernet switch for roce4j endpoints in one JVM, with seeded fault injection at each port's egress.
 *
 * <p>Model: every {@link #attach attached} port is a {@link MemoryLink} with an inbound ring. When a port commits a
 * frame, the switch routes it on its destination IP: an IPv4 or IPv6 address a port owns, or one of the kinds a
 * port's GID table holds ({@code ::ffff:a.b.c.d}, or {@code fe80::} with the modified EUI-64 of the port's MAC; see
 * {@link LinkAddress}). A frame no port's IP matches (or without IP) goes to the port whose MAC is its Ethernet
 * destination, if any, so tests can deliver foreign or malformed packets on purpose. A frame to an IP multicast group
 * (224.0.0.0/4, ff00::/8) is flooded to every other port with the group's MAC, as a switch without IGMP/MLD snooping
 * does; each receiver's engine keeps what its QPs joined. The switch writes the
 * destination port's MAC into the frame, so the engine never needs ARP here,
 * applies the sending port's {@link FaultInjector} (loss, duplication, corruption, reordering, delay, targeted
 * {@link FaultRule}s), and copies the frame into the destination's ring, where the destination's
 * {@link MemoryLink#poll poll} reads it in place. What the switch cannot deliver it drops and counts on the sending
 * port ({@link FabricCounter}, mirrored in the generic {@link org.roce4j.transport.link.LinkCounter}s): unknown
 * destinations, frames it cannot route (ARP requests and other broadcasts are dropped, never answered), frames larger
 * than either port's MTU, and frames meeting a full ring, as a congested switch would; RC retransmission recovers.
 *
 * <p>Time: delays are measured on the fabric's {@link NanoClock}. Tests inject a
 * {@link org.agrona.concurrent.CachedNanoClock} and advance it; delayed frames appear in {@code poll} once due.
 *
 * <p>Threading: ports may be driven by different threads (an agent per endpoint) or all by one (invoker mode).
 * Attaching and closing ports is thread safe (copy-on-write routing table); sending and receiving take no locks
 * and, once warm, allocate nothing.
 *
 * <pre>{@code
 * CachedNanoClock clock = new CachedNanoClock();
 * MemoryFabric fabric = MemoryFabric.builder().clock(clock).build();
 * MemoryLink a = fabric.attach(new LinkAddress(0x02_00_00_00_00_01L, 0x0A00_0001), 1500);   // 10.0.0.1
 * MemoryLink b = fabric.attach(new LinkAddress(0x02_00_00_00_00_02L, 0x0A00_0002), 1500);   // 10.0.0.2
 * a.faults().seed(7).loss(0.01).addRule(FaultRule.drop().operation(Operation.ACKNOWLEDGE).once());
 * a.send(frame, 0, frameLength);               // or tryClaim / build in sendBuffer() / commit
 * b.poll((buffer, offset, length) -> parser.parse(buffer, offset, length), 16);
 * clock.advance(50_000);                       // delayed frames become due
 * }</pre>
 */
public final class MemoryFabric implements AutoCloseable
{
    /**
     * Smallest inbound ring a port gets by default: 4 MiB, about 2700 full 1500-byte frames. Ports with a larger MTU
     * get more (see {@link #ringCapacityBytes(int)}).
     */
    public static final int DEFAULT_RING_CAPACITY_BYTES = 4 * 1024 * 1024;
    /**
     * Frames a port's default inbound ring holds at its MTU: the engine's default send window
     * ({@link EngineConfig#DEFAULT_SEND_WINDOW} unacknowledged packets), so one QP's whole window fits even when the
     * receiving engine does not run while the sender fills it. A ring that overflows drops frames (as a congested
     * switch would), and RC recovers only through PSN-sequence NAKs and retransmission: a 4 MiB burst of 4096-byte
     * packets into the former fixed 4 MiB ring cost 512 drops, 16 NAKs and 528 retransmissions per 20 bursts.
     * Several QPs sending to one port at once can still fill it; give such ports a larger ring
     * ({@link Builder#ringCapacityBytes(int)} or {@link #attach(LinkAddress, int, int)}).
     */
    public static final int DEFAULT_RING_FRAMES = EngineConfig.DEFAULT_SEND_WINDOW;
    /** Default number of not-yet-due delayed frames a port can hold. */
    public static final int DEFAULT_DELAY_SLOTS = 256;
    /** Default number of frames a port can hold back for reordering. */
    public static final int DEFAULT_REORDER_SLOTS = 64;
    /** Smallest IP MTU a port accepts: the IPv4 minimum (RFC 791). */
    public static final int MIN_MTU = 68;
    /** Largest IP MTU a port accepts: the largest IPv4 total length. */
    public static final int MAX_MTU = 0xFFFF;
    /** Largest MAC: 48 bits. */
    private static final long MAC_MASK = 0xFFFF_FFFF_FFFFL;
    /** A ring record has a 16-byte header and a {@link FrameRing} takes records of up to 1/8 of its capacity. */
    private static final int RING_MAX_RECORD_FRACTION = 8;

    private final NanoClock clock;
    /** The builder's ring size, or 0 to size each port's ring for its MTU. */
    private final int ringCapacityBytes;
    private final int delaySlots;
    private final int reorderSlots;
    private volatile RouteTable routes = RouteTable.EMPTY;

    /**
     * A fabric on the system nano clock with default sizes.
     */
    public MemoryFabric()
    {
        this(builder());
    }

    /**
     * A fabric with default sizes.
     *
     * @param clock measuring delays.
     */
    public MemoryFabric(final NanoClock clock)
    {
        this(builder().clock(clock));
    }

    private MemoryFabric(final Builder builder)
    {
        this.clock = builder.clock;
        this.ringCapacityBytes = builder.ringCapacityBytes;
        this.delaySlots = builder.delaySlots;
        this.reorderSlots = builder.reorderSlots;
    }

    /**
     * @return a builder with the defaults.
     */
    public static Builder builder()
    {
        return new Builder();
    }

    /**
     * The fabric of this JVM that {@code memory:IP} link specs attach to ({@link MemoryLinkConfig}), so that devices
     * opened from spec strings ({@code RdmaDevice.open("memory:10.0.0.1")}) reach each other. Created on first use,
     * with the system clock and default sizes; never closed (closing a device detaches its port).
     *
     * @return the default fabric.
     */
    public static MemoryFabric defaultFabric()
    {
        return DefaultFabric.INSTANCE;
    }

    /**
     * Attach a port with the fabric's ring size ({@link #ringCapacityBytes(int)} for its MTU).
     *
     * @param address MAC and IPv4 of the port; neither may be in use by another open port.
     * @param mtu     IP MTU of the port, {@link #MIN_MTU} to {@link #MAX_MTU}.
     * @return the port.
     * @throws IllegalArgumentException on a bad MTU or a MAC wider than 48 bits.
     * @throws IllegalStateException    when the MAC or IPv4 address is in use.
     */
    public MemoryLink attach(final LinkAddress address, final int mtu)
    {
        if (mtu < MIN_MTU || mtu > MAX_MTU)
        {
            throw new IllegalArgumentException("mtu " + mtu + " is outside " + MIN_MTU + ".." + MAX_MTU);
        }
        return attach(address, mtu, ringCapacityBytes(mtu));
    }

    /**
     * Attach a port described by a {@code memory:IP[,ip=IP]...[,mac=MAC][,mtu=N]} spec.
     *
     * @param spec the spec, see {@link MemoryLinkConfig}.
     * @return the port.
     * @throws IllegalArgumentException on a malformed spec.
     * @throws IllegalStateException    when the MAC or IPv4 address is in use.
     */
    public MemoryLink attach(final String spec)
    {
        final MemoryLinkConfig config = MemoryLinkConfig.parse(spec);
        return attach(config.address(), config.mtu());
    }

    /**
     * Attach a port.
     *
     * @param address           MAC and IPv4 of the port; neither may be in use by another open port.
     * @param mtu               IP MTU of the port, {@link #MIN_MTU} to {@link #MAX_MTU}.
     * @param ringCapacityBytes size of its inbound ring: a power of two with room for 8 records of the longest
     *                          frame plus 24 bytes (an 8-byte due time and a 16-byte record header).
     * @return the port.
     * @throws IllegalArgumentException on a bad MTU or ring size, or a MAC wider than 48 bits.
     * @throws IllegalStateException    when the MAC or IPv4 address is in use.
     */
    public synchronized MemoryLink attach(final LinkAddress address, final int mtu, final int ringCapacityBytes)
    {
        AgronaAccess.require();
        if (mtu < MIN_MTU || mtu > MAX_MTU)
        {
            throw new IllegalArgumentException("mtu " + mtu + " is outside " + MIN_MTU + ".." + MAX_MTU);
        }
        if (0 != (address.mac() & ~MAC_MASK))
        {
            throw new IllegalArgumentException("MAC wider than 48 bits: 0x" + Long.toHexString(address.mac()));
        }
        if (Mac.isGroup(address.mac()))
        {
            throw new IllegalArgumentException("a port needs a unicast MAC (group bit clear): " + address);
        }
        checkRingCapacity(ringCapacityBytes, MemoryLink.maxFrameLength(mtu));
        if (address.ips().isEmpty())
        {
            throw new IllegalArgumentException("a port needs an IP address: " + address);
        }
        final MemoryLink conflict = routes.conflicting(address);
        if (null != conflict)
        {
            throw new IllegalStateException("address " + address + " overlaps the open port " + conflict);
        }
        final MemoryLink port = new MemoryLink(this, address, mtu, ringCapacityBytes, delaySlots, reorderSlots);
        routes = routes.with(port);
        return port;
    }

    /**
     * @param ipv4 address as a big-endian int.
     * @return the open port with that address, or null.
     */
    public MemoryLink port(final int ipv4)
    {
        return routes.byIpv4(ipv4);
    }

    /**
     * @return the open ports, in attach order.
     */
    public List<MemoryLink> ports()
    {
        return Arrays.asList(routes.ports());
    }

    /**
     * @return the clock measuring delays.
     */
    public NanoClock clock()
    {
        return clock;
    }

    /**
     * @return inbound ring size of ports attached without an explicit size, or 0 when it follows each port's MTU
     *     ({@link #ringCapacityBytes(int)}).
     */
    public int ringCapacityBytes()
    {
        return ringCapacityBytes;
    }

    /**
     * The inbound ring a port of this MTU gets when attached without an explicit size: the builder's size if one was
     * set, else room for {@link #DEFAULT_RING_FRAMES} full frames with their ring overhead, rounded up to a power of
     * two, and at least {@link #DEFAULT_RING_CAPACITY_BYTES}: 4 MiB up to an MTU of about 4000, 16 MiB at 9000.
     *
     * @param mtu IP MTU of the port.
     * @return bytes.
     */
    public int ringCapacityBytes(final int mtu)
    {
        if (0 != ringCapacityBytes)
        {
            return ringCapacityBytes;
        }
        final long record = BitUtil.align(FrameRing.HEADER_LENGTH + InboundRing.DUE_TIME_LENGTH +
            MemoryLink.maxFrameLength(mtu), FrameRing.ALIGNMENT);
        final long window = (long)DEFAULT_RING_FRAMES * record;
        return (int)Math.max(DEFAULT_RING_CAPACITY_BYTES, BitUtil.findNextPositivePowerOfTwo(window));
    }

    /**
     * Close every port.
     */
    public void close()
    {
        for (final MemoryLink port : routes.ports())
        {
            port.close();
        }
    }

    /**
     * @return e.g. {@code MemoryFabric{ports=3}}.
     */
    public String toString()
    {
        return "MemoryFabric{ports=" + routes.size() + "}";
    }

    RouteTable routes()
    {
        return routes;
    }

    synchronized void detach(final MemoryLink port)
    {
        routes = routes.without(port);
    }

    private static void checkRingCapacity(final int capacity, final int maxFrameLength)
    {
        if (capacity < ManyToOneRingBuffer.MIN_CAPACITY || Integer.bitCount(capacity) != 1)
        {
            throw new IllegalArgumentException("ring capacity must be a power of two of at least " +
                ManyToOneRingBuffer.MIN_CAPACITY + " bytes: " + capacity);
        }
        final int record = maxFrameLength + InboundRing.DUE_TIME_LENGTH + FrameRing.HEADER_LENGTH;
        final long needed = (long)RING_MAX_RECORD_FRACTION * record;
        if (capacity / RING_MAX_RECORD_FRACTION < record)
        {
            throw new IllegalArgumentException("ring capacity " + capacity + " cannot carry frames of " +
                maxFrameLength + " bytes: it needs at least " + needed + " (next power of two)");
        }
    }

    /**
     * Settings of a {@link MemoryFabric}.
     */
    public static final class Builder
    {
        private NanoClock clock = SystemNanoClock.INSTANCE;
        private int ringCapacityBytes;
        private int delaySlots = DEFAULT_DELAY_SLOTS;
        private int reorderSlots = DEFAULT_REORDER_SLOTS;

        private Builder()
        {
        }

        /**
         * @param clock measuring delays (default: the system nano clock).
         * @return this.
         */
        public Builder clock(final NanoClock clock)
        {
            if (null == clock)
            {
                throw new IllegalArgumentException("clock must not be null");
            }
            this.clock = clock;
            return this;
        }

        /**
         * @param bytes inbound ring size of every port attached without one, a power of two, checked against the MTU
         *              at attach (default: sized for each port's MTU, see {@link MemoryFabric#ringCapacityBytes(int)}).
         * @return this.
         */
        public Builder ringCapacityBytes(final int bytes)
        {
            if (bytes < ManyToOneRingBuffer.MIN_CAPACITY || Integer.bitCount(bytes) != 1)
            {
                throw new IllegalArgumentException("ring capacity must be a power of two of at least " +
                    ManyToOneRingBuffer.MIN_CAPACITY + " bytes: " + bytes);
            }
            this.ringCapacityBytes = bytes;
            return this;
        }

        /**
         * @param slots delayed frames each port can hold until due, at least 1 (default
         *              {@link #DEFAULT_DELAY_SLOTS}); more are dropped and counted as
         *              {@link FabricCounter#HOLD_OVERFLOW}. Slot memory is allocated on a port's first delayed
         *              frame.
         * @return this.
         */
        public Builder delaySlots(final int slots)
        {
            this.delaySlots = checkSlots(slots, "delaySlots");
            return this;
        }

        /**
         * @param slots frames each port can hold back for reordering, at least 1 (default
         *              {@link #DEFAULT_REORDER_SLOTS}); beyond that frames go out in order and are counted as
         *              {@link FabricCounter#REORDER_OVERFLOW}.
         * @return this.
         */
        public Builder reorderSlots(final int slots)
        {
            this.reorderSlots = checkSlots(slots, "reorderSlots");
            return this;
        }

        /**
         * @return the fabric.
         */
        public MemoryFabric build()
        {
            return new MemoryFabric(this);
        }

        private static int checkSlots(final int slots, final String name)
        {
            // Slots are frame-sized (up to MAX_MTU + 18 bytes) and live in one array.
            if (slots < 1 || (long)slots * MemoryLink.maxFrameLength(MAX_MTU) > Integer.MAX_VALUE)
            {
                throw new IllegalArgumentException(name + " must be 1.." +
                    Integer.MAX_VALUE / MemoryLink.maxFrameLength(MAX_MTU) + ": " + slots);
            }
            return slots;
        }
    }

    /** Lazy holder of {@link #defaultFabric()}. */
    private static final class DefaultFabric
    {
        static final MemoryFabric INSTANCE = new MemoryFabric();
    }
}
