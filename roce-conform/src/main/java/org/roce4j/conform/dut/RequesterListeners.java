package org.roce4j.conform.dut;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The TCP listeners the DUT's client loops connect to (the DUT as requester), one per client tool, each opened at the
 * first scenario that needs it and kept for the whole run: a client loop that connects between two scenarios waits in
 * the listener's backlog until the next one accepts it. The run's owner closes them.
 */
public final class RequesterListeners implements AutoCloseable
{
    /** Connections a listener queues: a client loop has one at a time. */
    private static final int BACKLOG = 4;

    private final Map<RemoteTool, ServerSocket> listeners = new EnumMap<>(RemoteTool.class);

    /**
     * @param tool a client tool.
     * @param port the port its loop connects to.
     * @return the listener for it, bound on every address of this host.
     * @throws IOException when the port cannot be bound.
     */
    public synchronized ServerSocket listener(final RemoteTool tool, final int port) throws IOException
    {
        ServerSocket listener = listeners.get(tool);
        if (null == listener)
        {
            listener = new ServerSocket();
            listener.setReuseAddress(true);
            listener.bind(new InetSocketAddress(port), BACKLOG);
            listeners.put(tool, listener);
        }
        return listener;
    }

    /**
     * Bind the listeners of every client tool among {@code tools} now, before the run starts: the DUT's client loops
     * then wait in a listener's backlog for their scenario instead of retrying a refused connection meanwhile.
     *
     * @param config where the client loops connect.
     * @param tools  the tools of the run.
     * @return this.
     * @throws IOException when a port cannot be bound.
     */
    public RequesterListeners listenFor(final RemoteDutConfig config, final Collection<RemoteTool> tools)
        throws IOException
    {
        for (final RemoteTool tool : tools)
        {
            if (tool.client())
            {
                listener(tool, config.ports().applyAsInt(tool));
            }
        }
        return this;
    }

    /**
     * Close every listener (a client loop connecting then is refused, and its shell loop tries again).
     */
    @Override
    public synchronized void close()
    {
        final List<IOException> failures = new ArrayList<>();
        for (final ServerSocket listener : listeners.values())
        {
            try
            {
                listener.close();
            }
            catch (final IOException ex)
            {
                failures.add(ex);
            }
        }
        listeners.clear();
        if (!failures.isEmpty())
        {
            throw new IllegalStateException("cannot close the client loops' listeners: " + failures);
        }
    }
}
