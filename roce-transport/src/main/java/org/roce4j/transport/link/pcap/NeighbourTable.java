package org.roce4j.transport.link.pcap;

import org.agrona.DirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.concurrent.UnsafeBuffer;

import static java.nio.ByteOrder.BIG_ENDIAN;

/**
 * IPv4 neighbour table of a raw-Ethernet link: MACs learnt from ARP, resolution with retries, and a short queue of
 * frames per unresolved peer.
 *
 * <p>Resolution follows the Linux defaults (ip-sysctl: mcast_solicit 3, retrans_time_ms 1000): a broadcast ARP
 * request when the first frame to an unknown peer is queued, again every second, and after three unanswered
 * requests the peer is FAILED and its queued frames are dropped (and counted by the caller through
 * {@link Actions#dropped}). Up to {@code maxPendingPerPeer} frames wait per peer (Linux unres_qlen is about 100);
 * when more arrive, the oldest is dropped. A learnt MAC does not expire: any later ARP packet from the peer (reply,
 * request or gratuitous) replaces it.
 *
 * <p>Time is passed in ({@code nowNs}); nothing here reads a clock or sleeps. Single-threaded (the engine thread),
 * no allocation once a peer's entry exists: queued frames are copied into a preallocated pool of slots.
 */
final class NeighbourTable
{
    /** Returned by {@link #lookup} for a peer whose MAC is not known. */
    static final long NO_MAC = -1L;

    /**
     * What the table asks its link to do.
     */
    interface Actions
    {
        /**
         * Broadcast an ARP request for an address.
         *
         * @param ipv4 the address to resolve.
         */
        void sendArpRequest(int ipv4);

        /**
         * Send a frame that was waiting for resolution; its destination MAC is already written.
         *
         * @param frame  buffer holding the frame at index 0.
         * @param length of the frame.
         */
        void sendResolved(UnsafeBuffer frame, int length);

        /**
         * Frames to a peer were dropped (resolution failed or the queue overflowed).
         *
         * @param ipv4   the peer.
         * @param frames how many.
         * @param failed true when resolution failed (false: queue overflow).
         */
        void dropped(int ipv4, int frames, boolean failed);
    }

    private static final class Neighbour
    {
        final int ipv4;
        final int[] queue;
        NeighbourState state = NeighbourState.UNKNOWN;
        long mac = NO_MAC;
        int requestsSent;
        long nextRequestNs;
        int queueHead;
        int queueSize;

        Neighbour(final int ipv4, final int maxPending)
        {
            this.ipv4 = ipv4;
            this.queue = new int[maxPending];
        }
    }

    private final Int2ObjectHashMap<Neighbour> neighbours = new Int2ObjectHashMap<>();
    private final Neighbour[] resolving;
    private int resolvingCount;
    private final UnsafeBuffer[] slots;
    private final int[] slotLengths;
    private final int[] freeSlots;
    private int freeCount;
    private final int maxPendingPerPeer;
    private final long retryIntervalNs;
    private final int maxRequests;
    private final Actions actions;

    /**
     * @param maxPendingPerPeer frames queued per unresolved peer.
     * @param poolSlots         frames queued in all.
     * @param slotLength        largest frame.
     * @param retryIntervalNs   between ARP requests.
     * @param maxRequests       requests before a peer is FAILED.
     * @param maxResolving      peers being resolved at once.
     * @param actions           callbacks into the link.
     */
    NeighbourTable(
        final int maxPendingPerPeer,
        final int poolSlots,
        final int slotLength,
        final long retryIntervalNs,
        final int maxRequests,
        final int maxResolving,
        final Actions actions)
    {
        this.maxPendingPerPeer = maxPendingPerPeer;
        this.retryIntervalNs = retryIntervalNs;
        this.maxRequests = maxRequests;
        this.actions = actions;
        this.resolving = new Neighbour[maxResolving];
        this.slots = new UnsafeBuffer[poolSlots];
        this.slotLengths = new int[poolSlots];
        this.freeSlots = new int[poolSlots];
        for (int i = 0; i < poolSlots; i++)
        {
            slots[i] = new UnsafeBuffer(new byte[slotLength]);
            freeSlots[i] = i;
        }
        freeCount = poolSlots;
    }

    /**
     * @param ipv4 peer address.
     * @return its MAC, or {@link #NO_MAC}.
     */
    long lookup(final int ipv4)
    {
        final Neighbour neighbour = neighbours.get(ipv4);
        return null == neighbour ? NO_MAC : neighbour.mac;
    }

    /**
     * @param ipv4 peer address.
     * @return what is known about it.
     */
    NeighbourState state(final int ipv4)
    {
        final Neighbour neighbour = neighbours.get(ipv4);
        return null == neighbour ? NeighbourState.UNKNOWN : neighbour.state;
    }

    /**
     * Queue a frame for a peer whose MAC is not known, starting resolution if none is under way.
     *
     * @param ipv4   peer address.
     * @param frame  holding the frame.
     * @param offset of the frame.
     * @param length of the frame.
     * @param nowNs  current time.
     */
    void enqueue(final int ipv4, final DirectBuffer frame, final int offset, final int length, final long nowNs)
    {
        Neighbour neighbour = neighbours.get(ipv4);
        if (null == neighbour)
        {
            neighbour = new Neighbour(ipv4, maxPendingPerPeer);
            neighbours.put(ipv4, neighbour);
        }
        if (NeighbourState.INCOMPLETE != neighbour.state)
        {
            if (resolvingCount == resolving.length)
            {
                actions.dropped(ipv4, 1, true);
                return;
            }
            neighbour.state = NeighbourState.INCOMPLETE;
            neighbour.requestsSent = 0;
            neighbour.nextRequestNs = nowNs;
            resolving[resolvingCount++] = neighbour;
        }
        if (neighbour.queueSize == maxPendingPerPeer || 0 == freeCount)
        {
            if (0 == neighbour.queueSize)
            {
                actions.dropped(ipv4, 1, false);
                return;
            }
            releaseSlot(dequeue(neighbour));
            actions.dropped(ipv4, 1, false);
        }
        final int slot = freeSlots[--freeCount];
        slots[slot].putBytes(0, frame, offset, length);
        slotLengths[slot] = length;
        neighbour.queue[(neighbour.queueHead + neighbour.queueSize) % maxPendingPerPeer] = slot;
        neighbour.queueSize++;
        onTimer(nowNs);
    }

    /**
     * Start resolving a peer without a frame to send (ahead of traffic); nothing happens when its MAC is known or
     * resolution is under way.
     *
     * @param ipv4  peer address.
     * @param nowNs current time.
     */
    void resolve(final int ipv4, final long nowNs)
    {
        Neighbour neighbour = neighbours.get(ipv4);
        if (null == neighbour)
        {
            neighbour = new Neighbour(ipv4, maxPendingPerPeer);
            neighbours.put(ipv4, neighbour);
        }
        if (NeighbourState.REACHABLE == neighbour.state || NeighbourState.INCOMPLETE == neighbour.state ||
            resolvingCount == resolving.length)
        {
            return;
        }
        neighbour.state = NeighbourState.INCOMPLETE;
        neighbour.requestsSent = 0;
        neighbour.nextRequestNs = nowNs;
        resolving[resolvingCount++] = neighbour;
        onTimer(nowNs);
    }

    /**
     * Learn a MAC from ARP and send whatever waited for it.
     *
     * @param ipv4   peer address.
     * @param mac    its MAC.
     * @param create true to add a peer not in the table (an ARP request addressed to the link); false to only
     *               update known peers (replies and gratuitous ARP).
     */
    void learn(final int ipv4, final long mac, final boolean create)
    {
        Neighbour neighbour = neighbours.get(ipv4);
        if (null == neighbour)
        {
            if (!create)
            {
                return;
            }
            neighbour = new Neighbour(ipv4, maxPendingPerPeer);
            neighbours.put(ipv4, neighbour);
        }
        neighbour.mac = mac;
        if (NeighbourState.INCOMPLETE == neighbour.state)
        {
            removeResolving(neighbour);
        }
        neighbour.state = NeighbourState.REACHABLE;
        while (neighbour.queueSize > 0)
        {
            final int slot = dequeue(neighbour);
            final UnsafeBuffer frame = slots[slot];
            frame.putShort(0, (short)(mac >>> 32), BIG_ENDIAN);
            frame.putInt(2, (int)mac, BIG_ENDIAN);
            actions.sendResolved(frame, slotLengths[slot]);
            releaseSlot(slot);
        }
    }

    /**
     * Send due ARP requests and fail peers that never answered.
     *
     * @param nowNs current time.
     * @return number of actions taken.
     */
    int onTimer(final long nowNs)
    {
        int work = 0;
        for (int i = resolvingCount - 1; i >= 0; i--)
        {
            final Neighbour neighbour = resolving[i];
            if (nowNs - neighbour.nextRequestNs < 0)
            {
                continue;
            }
            if (neighbour.requestsSent == maxRequests)
            {
                neighbour.state = NeighbourState.FAILED;
                removeResolving(neighbour);
                final int dropped = neighbour.queueSize;
                while (neighbour.queueSize > 0)
                {
                    releaseSlot(dequeue(neighbour));
                }
                actions.dropped(neighbour.ipv4, dropped, true);
            }
            else
            {
                neighbour.requestsSent++;
                neighbour.nextRequestNs = nowNs + retryIntervalNs;
                actions.sendArpRequest(neighbour.ipv4);
            }
            work++;
        }
        return work;
    }

    /**
     * @return peers being resolved.
     */
    int resolvingCount()
    {
        return resolvingCount;
    }

    /**
     * @return pool slots holding queued frames.
     */
    int queuedFrames()
    {
        return slots.length - freeCount;
    }

    private int dequeue(final Neighbour neighbour)
    {
        final int slot = neighbour.queue[neighbour.queueHead];
        neighbour.queueHead = (neighbour.queueHead + 1) % maxPendingPerPeer;
        neighbour.queueSize--;
        return slot;
    }

    private void releaseSlot(final int slot)
    {
        freeSlots[freeCount++] = slot;
    }

    private void removeResolving(final Neighbour neighbour)
    {
        for (int i = 0; i < resolvingCount; i++)
        {
            if (resolving[i] == neighbour)
            {
                resolving[i] = resolving[--resolvingCount];
                resolving[resolvingCount] = null;
                return;
            }
        }
    }
}
