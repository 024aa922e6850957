package org.roce4j.transport.link.ethernet;

import java.nio.ByteBuffer;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.wire.addr.Mac;

/**
 * One neighbour table for IPv4 and IPv6: MACs learnt from ARP and Neighbor Discovery, resolution with retries, and
 * the frames held while their destination is resolved. Addresses are keyed as GIDs (two longs; an IPv4 address as
 * {@code ::ffff:a.b.c.d}), so one table serves both families.
 *
 * <p>Resolution (RFC 826 and RFC 4861 7.2, with the retry-and-give-up of RFC 1122 2.3.2.1): the first frame to an
 * unknown neighbour starts it; a request is due at once, then every {@link NeighbourPolicy#intervalMs()}; after
 * {@link NeighbourPolicy#requests()} unanswered requests the neighbour is FAILED and its held frames are dropped
 * (reported through {@link Listener#dropped}). The next frame starts a new round. A learnt MAC does not expire:
 * any later ARP packet or advertisement from the neighbour replaces it.
 *
 * <p>Held frames are copied into a pool of {@link NeighbourPolicy#heldFrames()} slots in native memory and leave in
 * order, per neighbour, as soon as its MAC is known; frames to a neighbour whose held frames have not all left yet
 * are held behind them, so nothing overtakes. When the pool is full the neighbour's oldest held frame is dropped for
 * the new one (as Linux's unres_qlen), or the new frame when it has none.
 *
 * <p>Fixed arrays sized by the policy: nothing allocates after construction. Lookups scan the used entries (a link
 * has a handful of neighbours) after a one-entry cache of the last hit. Time is passed in; nothing reads a clock.
 * Single threaded (the thread driving the link).
 */
final class NeighbourTable
{
    /**
     * What the table asks its link to do.
     */
    interface Listener
    {
        /**
         * Send a request for an address: an ARP request, or a Neighbor Solicitation.
         *
         * @param high 64 bits of the address (IPv4-mapped for IPv4).
         * @param low  64 bits of the address.
         */
        void solicit(long high, long low);

        /**
         * Send a frame that waited for its destination; its destination MAC is written.
         *
         * @param buffer holding the frame.
         * @param offset of the frame.
         * @param length of the frame.
         * @return false when the medium is full: the frame stays held and is tried again later.
         */
        boolean transmitHeld(UnsafeBuffer buffer, int offset, int length);

        /**
         * Frames to a neighbour were dropped.
         *
         * @param high   64 bits of the neighbour's address.
         * @param low    64 bits of the neighbour's address.
         * @param frames how many.
         * @param failed true when resolution failed (false: the hold pool or table was full).
         */
        void dropped(long high, long low, int frames, boolean failed);
    }

    private static final int NO_SLOT = -1;
    private static final byte UNUSED = 0;

    private final NeighbourPolicy policy;
    private final Listener listener;
    private final long intervalNs;

    private final long[] high;
    private final long[] low;
    private final NeighbourState[] state;
    private final long[] mac;
    private final int[] requestsSent;
    private final long[] nextRequestNs;
    private final int[] heldHead;
    private final int[] heldTail;
    private final int[] heldCount;
    private final byte[] used;
    private int lastHit = NO_SLOT;
    private int victim;

    private final UnsafeBuffer pool;
    private final int slotLength;
    private final int[] slotNext;
    private final int[] slotFrameLength;
    private int freeHead;
    private int resolving;
    private int heldTotal;

    /**
     * @param policy     sizes and timing.
     * @param slotLength longest frame held.
     * @param listener   the link's actions.
     */
    NeighbourTable(final NeighbourPolicy policy, final int slotLength, final Listener listener)
    {
        this.policy = policy;
        this.listener = listener;
        this.intervalNs = policy.intervalNs();
        final int entries = policy.neighbours();
        high = new long[entries];
        low = new long[entries];
        state = new NeighbourState[entries];
        mac = new long[entries];
        requestsSent = new int[entries];
        nextRequestNs = new long[entries];
        heldHead = new int[entries];
        heldTail = new int[entries];
        heldCount = new int[entries];
        used = new byte[entries];
        final int slots = policy.heldFrames();
        this.slotLength = slotLength;
        // Native memory: a held frame is handed to the medium from where it waits (pcap_sendpacket takes an address).
        pool = new UnsafeBuffer(ByteBuffer.allocateDirect(Math.max(1, slots) * slotLength));
        slotNext = new int[slots];
        slotFrameLength = new int[slots];
        for (int i = 0; i < slots; i++)
        {
            slotNext[i] = i + 1 < slots ? i + 1 : NO_SLOT;
        }
        freeHead = slots > 0 ? 0 : NO_SLOT;
    }

    /**
     * The MAC to send to now.
     *
     * @param addressHigh 64 bits of the address.
     * @param addressLow  64 bits of the address.
     * @return the MAC, or {@link Mac#NONE} when the neighbour is not resolved or frames to it are still held.
     */
    long lookup(final long addressHigh, final long addressLow)
    {
        final int entry = find(addressHigh, addressLow);
        return entry >= 0 && NeighbourState.REACHABLE == state[entry] && 0 == heldCount[entry] ? mac[entry] : Mac.NONE;
    }

    /**
     * @param addressHigh 64 bits of the address.
     * @param addressLow  64 bits of the address.
     * @return the learnt MAC, held frames or not, or {@link Mac#NONE}.
     */
    long learntMac(final long addressHigh, final long addressLow)
    {
        final int entry = find(addressHigh, addressLow);
        return entry >= 0 && NeighbourState.REACHABLE == state[entry] ? mac[entry] : Mac.NONE;
    }

    /**
     * @param addressHigh 64 bits of the address.
     * @param addressLow  64 bits of the address.
     * @return what is known about it.
     */
    NeighbourState state(final long addressHigh, final long addressLow)
    {
        final int entry = find(addressHigh, addressLow);
        return entry < 0 ? NeighbourState.UNKNOWN : state[entry];
    }

    /**
     * Hold a frame for a neighbour whose MAC is not known (or whose earlier frames still wait), starting resolution
     * when none is under way.
     *
     * @param addressHigh 64 bits of the destination.
     * @param addressLow  64 bits of the destination.
     * @param frame       holding the frame.
     * @param offset      of the frame.
     * @param length      of the frame, at most the slot length.
     * @param nowNs       current time.
     * @return false when the frame could not be held (no table entry, or no slot): the caller counts the drop.
     */
    boolean hold(
        final long addressHigh, final long addressLow, final DirectBuffer frame, final int offset, final int length,
        final long nowNs)
    {
        int entry = find(addressHigh, addressLow);
        if (entry < 0)
        {
            entry = allocate(addressHigh, addressLow);
            if (entry < 0)
            {
                return false;
            }
        }
        if (NeighbourState.REACHABLE != state[entry] && NeighbourState.INCOMPLETE != state[entry])
        {
            startResolving(entry, nowNs);
        }
        if (length > slotLength)
        {
            return false;
        }
        if (NO_SLOT == freeHead)
        {
            if (0 == heldCount[entry])
            {
                return false;
            }
            // The pool is full: this neighbour's oldest frame makes room for its newest (Linux's unres_qlen).
            releaseSlot(dequeue(entry));
            listener.dropped(addressHigh, addressLow, 1, false);
        }
        final int slot = freeHead;
        freeHead = slotNext[slot];
        pool.putBytes(slot * slotLength, frame, offset, length);
        slotFrameLength[slot] = length;
        slotNext[slot] = NO_SLOT;
        if (0 == heldCount[entry])
        {
            heldHead[entry] = slot;
        }
        else
        {
            slotNext[heldTail[entry]] = slot;
        }
        heldTail[entry] = slot;
        heldCount[entry]++;
        heldTotal++;
        return true;
    }

    /**
     * Start resolving a neighbour ahead of traffic; nothing happens when its MAC is known or being resolved, or the
     * table is full.
     *
     * @param addressHigh 64 bits of the address.
     * @param addressLow  64 bits of the address.
     * @param nowNs       current time.
     */
    void resolve(final long addressHigh, final long addressLow, final long nowNs)
    {
        int entry = find(addressHigh, addressLow);
        if (entry < 0)
        {
            entry = allocate(addressHigh, addressLow);
            if (entry < 0)
            {
                return;
            }
        }
        if (NeighbourState.REACHABLE != state[entry] && NeighbourState.INCOMPLETE != state[entry])
        {
            startResolving(entry, nowNs);
        }
    }

    /**
     * Learn a MAC and send whatever waited for it.
     *
     * @param addressHigh 64 bits of the address.
     * @param addressLow  64 bits of the address.
     * @param learnt      its MAC.
     * @param create      true to add a neighbour not in the table (an ARP packet or solicitation addressed to the
     *                    link, RFC 826 and RFC 4861 7.2.3); false to update known ones only.
     * @return true when the table holds the MAC now.
     */
    boolean learn(final long addressHigh, final long addressLow, final long learnt, final boolean create)
    {
        int entry = find(addressHigh, addressLow);
        if (entry < 0)
        {
            if (!create)
            {
                return false;
            }
            entry = allocate(addressHigh, addressLow);
            if (entry < 0)
            {
                return false;
            }
        }
        if (NeighbourState.INCOMPLETE == state[entry])
        {
            resolving--;
        }
        mac[entry] = learnt;
        state[entry] = NeighbourState.REACHABLE;
        sendHeld(entry);
        return true;
    }

    /**
     * Send due requests, give up on neighbours that never answered, and send held frames whose MAC is known.
     *
     * @param nowNs current time.
     */
    void service(final long nowNs)
    {
        if (0 == resolving && 0 == heldTotal)
        {
            return;
        }
        for (int entry = 0; entry < used.length; entry++)
        {
            if (UNUSED == used[entry])
            {
                continue;
            }
            if (NeighbourState.REACHABLE == state[entry])
            {
                if (heldCount[entry] > 0)
                {
                    sendHeld(entry);
                }
            }
            else if (NeighbourState.INCOMPLETE == state[entry] && nextRequestNs[entry] - nowNs <= 0)
            {
                if (requestsSent[entry] >= policy.requests())
                {
                    state[entry] = NeighbourState.FAILED;
                    resolving--;
                    final int dropped = heldCount[entry];
                    while (heldCount[entry] > 0)
                    {
                        releaseSlot(dequeue(entry));
                    }
                    listener.dropped(high[entry], low[entry], dropped, true);
                }
                else
                {
                    requestsSent[entry]++;
                    nextRequestNs[entry] = nowNs + intervalNs;
                    listener.solicit(high[entry], low[entry]);
                }
            }
        }
    }

    /**
     * @return neighbours being resolved.
     */
    int resolvingCount()
    {
        return resolving;
    }

    /**
     * @return frames held now.
     */
    int heldFrames()
    {
        return heldTotal;
    }

    private void startResolving(final int entry, final long nowNs)
    {
        state[entry] = NeighbourState.INCOMPLETE;
        requestsSent[entry] = 0;
        nextRequestNs[entry] = nowNs;
        resolving++;
    }

    private void sendHeld(final int entry)
    {
        final long destination = mac[entry];
        while (heldCount[entry] > 0)
        {
            final int slot = heldHead[entry];
            final int offset = slot * slotLength;
            Mac.write(pool, offset, destination);
            if (!listener.transmitHeld(pool, offset, slotFrameLength[slot]))
            {
                return;
            }
            releaseSlot(dequeue(entry));
        }
    }

    private int dequeue(final int entry)
    {
        final int slot = heldHead[entry];
        heldHead[entry] = slotNext[slot];
        heldCount[entry]--;
        heldTotal--;
        return slot;
    }

    private void releaseSlot(final int slot)
    {
        slotNext[slot] = freeHead;
        freeHead = slot;
    }

    private int find(final long addressHigh, final long addressLow)
    {
        final int cached = lastHit;
        if (cached >= 0 && UNUSED != used[cached] && high[cached] == addressHigh && low[cached] == addressLow)
        {
            return cached;
        }
        for (int entry = 0; entry < used.length; entry++)
        {
            if (UNUSED != used[entry] && high[entry] == addressHigh && low[entry] == addressLow)
            {
                lastHit = entry;
                return entry;
            }
        }
        return NO_SLOT;
    }

    /**
     * A free entry, or one taken from a neighbour that has nothing waiting: FAILED ones first, then resolved ones in
     * round-robin order. None when every entry is resolving or holds frames.
     */
    private int allocate(final long addressHigh, final long addressLow)
    {
        int entry = NO_SLOT;
        for (int i = 0; i < used.length && NO_SLOT == entry; i++)
        {
            if (UNUSED == used[i] || (NeighbourState.FAILED == state[i] && 0 == heldCount[i]))
            {
                entry = i;
            }
        }
        for (int i = 0; i < used.length && NO_SLOT == entry; i++)
        {
            final int candidate = (victim + i) % used.length;
            if (NeighbourState.REACHABLE == state[candidate] && 0 == heldCount[candidate])
            {
                entry = candidate;
                victim = candidate + 1;
            }
        }
        if (NO_SLOT == entry)
        {
            return NO_SLOT;
        }
        used[entry] = 1;
        high[entry] = addressHigh;
        low[entry] = addressLow;
        state[entry] = NeighbourState.UNKNOWN;
        mac[entry] = Mac.NONE;
        heldCount[entry] = 0;
        return entry;
    }
}
