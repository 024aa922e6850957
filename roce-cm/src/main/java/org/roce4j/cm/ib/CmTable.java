package org.roce4j.cm.ib;

import java.util.ArrayList;

import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.Long2ObjectHashMap;

/**
 * The {@link IbCm}'s bookkeeping (cm.c's cm.local_id_table and listen_service_table): the connections it knows,
 * keyed by local communication ID and in creation order for scans, and the listener of each service ID. Same
 * thread as the CM.
 */
final class CmTable
{
    private final CmIdSource ids;
    private final CmCounters counters;
    private final Int2ObjectHashMap<CmConnection> byLocalId = new Int2ObjectHashMap<>();
    private final ArrayList<CmConnection> connections = new ArrayList<>();
    private final Long2ObjectHashMap<CmListener> listeners = new Long2ObjectHashMap<>();

    /**
     * @param ids      communication IDs.
     * @param counters where to count unmatched messages.
     */
    CmTable(final CmIdSource ids, final CmCounters counters)
    {
        this.ids = ids;
        this.counters = counters;
    }

    /**
     * @return the connections, in creation order (the live list: do not keep it).
     */
    ArrayList<CmConnection> connections()
    {
        return connections;
    }

    /**
     * @param localCommId a local communication ID.
     * @return that connection, or null.
     */
    CmConnection byLocalId(final int localCommId)
    {
        return byLocalId.get(localCommId);
    }

    /**
     * The connection both comm IDs of a message name; counts DROP_UNMATCHED when there is none.
     *
     * @param ourId   the message's remote comm ID.
     * @param theirId the message's local comm ID.
     * @return the connection, or null.
     */
    CmConnection matchBoth(final int ourId, final int theirId)
    {
        final CmConnection c = byLocalId.get(ourId);
        if (null == c || c.remoteCommId != theirId)
        {
            counters.increment(CmCounter.DROP_UNMATCHED);
            return null;
        }
        return c;
    }

    /**
     * @param serviceId a service ID.
     * @return its listener, or null.
     */
    CmListener listener(final long serviceId)
    {
        return listeners.get(serviceId);
    }

    /**
     * @param serviceId a service ID.
     * @param listener  its listener.
     * @throws IllegalStateException when someone already listens on it.
     */
    void listen(final long serviceId, final CmListener listener)
    {
        if (listeners.containsKey(serviceId))
        {
            throw new IllegalStateException("service ID 0x" + Long.toHexString(serviceId) + " already has a listener");
        }
        listeners.put(serviceId, listener);
    }

    /**
     * @param serviceId a service ID nobody listens on any more.
     */
    void cancelListen(final long serviceId)
    {
        listeners.remove(serviceId);
    }

    /**
     * @param c a new connection, its local comm ID set.
     */
    void register(final CmConnection c)
    {
        byLocalId.put(c.localCommId, c);
        connections.add(c);
    }

    /**
     * Take a connection out of the table: IDLE, no timer.
     *
     * @param c the connection.
     */
    void forget(final CmConnection c)
    {
        c.state = CmState.IDLE;
        c.deadlineNs = Long.MAX_VALUE;
        if (byLocalId.get(c.localCommId) == c)
        {
            byLocalId.remove(c.localCommId);
        }
        connections.remove(c);
    }

    /**
     * @return a local comm ID, neither 0 nor in use.
     */
    int newCommId()
    {
        while (true)
        {
            final int id = ids.nextCommId();
            if (0 != id && !byLocalId.containsKey(id))
            {
                return id;
            }
        }
    }
}
