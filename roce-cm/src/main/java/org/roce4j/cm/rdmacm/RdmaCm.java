package org.roce4j.cm.rdmacm;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.roce4j.cm.ib.CmConfig;
import org.roce4j.cm.ib.CmConnection;
import org.roce4j.cm.ib.CmCounters;
import org.roce4j.cm.ib.CmHandler;
import org.roce4j.cm.ib.CmState;
import org.roce4j.cm.ib.GsiPort;
import org.roce4j.cm.ib.IbCm;
import org.roce4j.transport.provider.CommandQueue;
import org.roce4j.verbs.ProgressGroup;
import org.roce4j.verbs.ProgressTask;
import org.roce4j.verbs.RdmaDevice;
import org.roce4j.verbs.ThreadingMode;
import org.roce4j.wire.mad.CmRejectReason;
import org.roce4j.wire.mad.CmSidrRepMessage;
import org.roce4j.wire.mad.RdmaCmServiceId;

/**
 * rdma_cm for one roce4j device (an rdma_event_channel with the kernel's rdma_cm and ib_cm behind it): owns QP1
 * ({@link GsiPort}) and the {@link IbCm}, creates {@link RdmaCmId}s, and delivers their {@link RdmaCmEvent}s.
 *
 * <pre>{@code
 * RdmaCm cm = RdmaCm.open(device);
 * // passive side
 * RdmaCmId listener = cm.createId().listen(new InetSocketAddress("0.0.0.0", 7174), 3);
 * RdmaCmEvent request = cm.getEvent(timeoutNs);               // CONNECT_REQUEST
 * RdmaCmId child = request.id();
 * child.createQp(pd, init);
 * child.accept(null);
 * cm.expect(child, RdmaCmEventType.ESTABLISHED, timeoutNs);
 * // active side
 * RdmaCmId id = cm.createId();
 * id.createQp(pd, init);
 * id.connect(new InetSocketAddress("10.77.0.2", 7174), new ConnParam());
 * cm.expect(id, RdmaCmEventType.ESTABLISHED, timeoutNs);      // or RdmaCmException: rejected, unreachable...
 * id.disconnect();
 * }</pre>
 *
 * <p>RDMA CM on the wire (cma.c): the REQ's service ID is {@code 0x0000000001060000 | port} (TCP port space), its
 * private data starts with the 36-byte rdma_cm header (version 0, IP version, the active side's port, both
 * addresses; IPv4 or IPv6) followed by the user's 56 bytes. A REQ whose rdma_cm header is malformed, whose
 * destination matches no listener's address, or whose transport is not RC is rejected with reason 28
 * (CONSUMER_DEFINED), as the kernel does when rdma_cm refuses a request; one with no listener on its port gets
 * reason 8 from the IB CM; one whose path MTU exceeds this device's active MTU gets reason 26 (INVALID_MTU).
 *
 * <p>Identifiers of the UDP port space ({@link #createId(int)} with {@code RdmaCmServiceId.PS_UDP}) resolve a UD peer
 * with SIDR_REQ / SIDR_REP instead (service ID {@code 0x0000000001110000 | port}, the same rdma_cm header); see
 * {@link RdmaCmId}.
 *
 * <p>Threading: on a DEDICATED device the CM runs on its own agent thread ({@code roce-cm}, backing off to 1 ms
 * parks when idle), like the kernel's CM work queue, so it answers MADs whatever the application does; API calls
 * from other threads are handed to it. On an INVOKER device it runs as a {@link ProgressTask} of the device's
 * progress group: every poll or wait of the application drives it, and with a simulated clock its timers are
 * deterministic. Events go to one queue ({@link #getEvent}), read by one thread at a time.
 */
public final class RdmaCm implements AutoCloseable
{
    /** Longest an API call waits for the CM thread. */
    private static final long CALL_TIMEOUT_MS = 10_000;
    /** Longest close() waits for the last MADs (REJ, DREQ, DREP) to leave QP1. */
    private static final long CLOSE_DRAIN_NS = TimeUnit.MILLISECONDS.toNanos(200);

    private final RdmaDevice device;
    private final RdmaCmOptions options;
    private final CmCounters counters = new CmCounters();
    private final GsiPort gsi;
    private final IbCm cm;
    private final RdmaCmConnector connector;
    private final RdmaCmListeners listeners;
    private final LinkedBlockingDeque<RdmaCmEvent> events = new LinkedBlockingDeque<>();
    private final CommandQueue commands = new CommandQueue("the CM thread", CALL_TIMEOUT_MS);
    private final List<RdmaCmId> ids = new ArrayList<>();
    private final AtomicLong errors = new AtomicLong();
    private final CmAgent agent = new CmAgent();
    private final ProgressGroup group;
    private final AgentRunner runner;
    private volatile Thread cmThread;
    private volatile Throwable lastError;
    private volatile boolean closed;
    private int nextNumber = 1;

    private RdmaCm(final RdmaDevice device, final RdmaCmOptions options)
    {
        this.device = device;
        this.options = options;
        this.gsi = new GsiPort(device, options.gsiDepth());
        final RdmaCmAddresses addresses = new RdmaCmAddresses(device.link().address());
        this.cm = new IbCm(gsi, options.cmConfig(), device.clock(), options.ids(), RdmaCmAddresses.caGuid(device),
            (high, low) -> RdmaCmAddresses.isLocalGid(device, high, low), counters);
        this.connector = new RdmaCmConnector(this, cm, device, options, addresses);
        this.listeners = new RdmaCmListeners(cm, connector::onRequest, connector::onSidrRequest, addresses,
            device.name());
        if (ThreadingMode.INVOKER == device.threadingMode())
        {
            this.group = device.progressGroup();
            this.runner = null;
            group.addTask(agent);
        }
        else
        {
            this.group = null;
            final CountDownLatch started = new CountDownLatch(1);
            agent.started = started;
            // The CM is control traffic: back off to 1 ms parks when idle (10 spins, 20 yields, 1 µs .. 1 ms).
            this.runner = new AgentRunner(new BackoffIdleStrategy(10, 20, 1_000, 1_000_000), this::noteError, null,
                agent);
            AgentRunner.startOnThread(runner);
            try
            {
                if (!started.await(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS))
                {
                    runner.close();
                    throw new IllegalStateException("the CM thread of " + device.name() + " did not start");
                }
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                runner.close();
                throw new IllegalStateException("interrupted while starting the CM thread", ex);
            }
        }
    }

    /**
     * Open rdma_cm on a device with default options (Linux 6.1's CM timing; see {@link CmConfig}).
     *
     * @param device the device; it must not have a GSI QP yet (one RdmaCm per device).
     * @return the CM.
     */
    public static RdmaCm open(final RdmaDevice device)
    {
        return open(device, new RdmaCmOptions());
    }

    /**
     * Open rdma_cm on a device.
     *
     * @param device  the device; it must not have a GSI QP yet (one RdmaCm per device).
     * @param options timing, ID source, QP1 depth.
     * @return the CM.
     */
    public static RdmaCm open(final RdmaDevice device, final RdmaCmOptions options)
    {
        if (null == device || null == options)
        {
            throw new NullPointerException("device and options must not be null");
        }
        return new RdmaCm(device, options);
    }

    // ------------------------------------------------------------------------------------------------------------
    // API
    // ------------------------------------------------------------------------------------------------------------

    /**
     * @return a new identifier in the TCP port space (rdma_create_id with RDMA_PS_TCP).
     */
    public RdmaCmId createId()
    {
        return createId(RdmaCmServiceId.PS_TCP);
    }

    /**
     * A new identifier in a port space (rdma_create_id): RDMA_PS_TCP for RC connections, RDMA_PS_UDP for UD
     * (service ID resolution, SIDR; see {@link RdmaCmId}).
     *
     * @param portSpace {@link RdmaCmServiceId#PS_TCP} (0x0106) or {@link RdmaCmServiceId#PS_UDP} (0x0111).
     * @return the identifier.
     * @throws IllegalArgumentException for another port space (RDMA_PS_IPOIB and RDMA_PS_IB are not supported).
     */
    public RdmaCmId createId(final int portSpace)
    {
        if (RdmaCmServiceId.PS_TCP != portSpace && RdmaCmServiceId.PS_UDP != portSpace)
        {
            throw new IllegalArgumentException("port space 0x" + Integer.toHexString(portSpace) + " is not " +
                "supported: RDMA_PS_TCP (0x106) and RDMA_PS_UDP (0x111) are");
        }
        return call(() -> newId(null, portSpace));
    }

    /**
     * Take the next event (rdma_get_cm_event). In INVOKER mode this drives the device's progress group.
     *
     * @param timeoutNs longest wait (device clock); Long.MAX_VALUE waits forever.
     * @return the event, or null on timeout.
     */
    public RdmaCmEvent getEvent(final long timeoutNs)
    {
        if (timeoutNs < 0)
        {
            throw new IllegalArgumentException("timeout must be >= 0 ns, got " + timeoutNs);
        }
        if (null != group)
        {
            final long deadline = Long.MAX_VALUE == timeoutNs ? Long.MAX_VALUE : device.clock().nanoTime() + timeoutNs;
            group.waitUntil(() -> !events.isEmpty(), deadline, device.clock());
            return events.pollFirst();
        }
        try
        {
            return Long.MAX_VALUE == timeoutNs ? events.takeFirst() :
                events.pollFirst(timeoutNs, TimeUnit.NANOSECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /**
     * @return the next event, or null; does not wait or drive progress.
     */
    public RdmaCmEvent pollEvent()
    {
        return events.pollFirst();
    }

    /**
     * Wait for the next event of one identifier and require its type; events of other identifiers that come first
     * stay queued, in order, for {@link #getEvent}.
     *
     * @param id        the identifier (for CONNECT_REQUEST: the listener).
     * @param expected  the type wanted.
     * @param timeoutNs longest wait (device clock); Long.MAX_VALUE waits forever.
     * @return the event.
     * @throws RdmaCmException naming what came instead (rejected with reason N, unreachable, disconnected...) or
     *                         the timeout.
     */
    public RdmaCmEvent expect(final RdmaCmId id, final RdmaCmEventType expected, final long timeoutNs)
    {
        if (timeoutNs < 0)
        {
            throw new IllegalArgumentException("timeout must be >= 0 ns, got " + timeoutNs);
        }
        final boolean forever = Long.MAX_VALUE == timeoutNs;
        final long deadline = forever ? Long.MAX_VALUE : device.clock().nanoTime() + timeoutNs;
        final ArrayDeque<RdmaCmEvent> others = new ArrayDeque<>();
        try
        {
            while (true)
            {
                final long left = forever ? Long.MAX_VALUE : deadline - device.clock().nanoTime();
                final RdmaCmEvent event = left > 0 ? getEvent(left) : pollEvent();
                if (null == event)
                {
                    throw new RdmaCmException("no " + expected.libraryName() + " for " + id + " within " +
                        TimeUnit.NANOSECONDS.toMillis(timeoutNs) + " ms" + describeWait(id), null);
                }
                if (event.id() == id || event.listenId() == id)
                {
                    if (expected != event.type())
                    {
                        throw new RdmaCmException("expected " + expected.libraryName() + " for " + id + " but got " +
                            event, event);
                    }
                    return event;
                }
                others.addLast(event);
            }
        }
        finally
        {
            while (!others.isEmpty())
            {
                events.addFirst(others.pollLast());
            }
        }
    }

    private String describeWait(final RdmaCmId id)
    {
        final String connection = id.describeConnection();
        return null == connection ? "" : " (CM: " + connection + ")";
    }

    /**
     * @return the CM's counters (MADs, drops by reason, duplicates, retransmissions, timeouts, REJs...).
     */
    public CmCounters counters()
    {
        return counters;
    }

    /**
     * @return one line per non-zero counter.
     */
    public String describeCounters()
    {
        final StringBuilder sb = new StringBuilder();
        for (final org.roce4j.cm.ib.CmCounter counter : org.roce4j.cm.ib.CmCounter.values())
        {
            final long value = counters.get(counter);
            if (0 != value)
            {
                sb.append(counter.name().toLowerCase(java.util.Locale.ROOT)).append(' ').append(value).append('\n');
            }
        }
        return sb.toString();
    }

    /**
     * @return the device.
     */
    public RdmaDevice device()
    {
        return device;
    }

    /**
     * @return the options.
     */
    public RdmaCmOptions options()
    {
        return options;
    }

    /**
     * @return the CM thread (DEDICATED), or null.
     */
    public Thread thread()
    {
        return cmThread;
    }

    /**
     * @return exceptions raised on the CM's thread outside API calls (0 when healthy).
     */
    public long errors()
    {
        return errors.get();
    }

    /**
     * @return the last such exception, or null.
     */
    public Throwable lastError()
    {
        return lastError;
    }

    /**
     * Destroy every identifier (telling peers as rdma_destroy_id does), let the last MADs leave, stop the CM thread
     * or leave the progress group, and destroy QP1. The device stays open. Idempotent.
     */
    public void close()
    {
        if (closed)
        {
            return;
        }
        try
        {
            call(() ->
            {
                for (final RdmaCmId id : new ArrayList<>(ids))
                {
                    id.destroy();
                }
                return null;
            });
            drainSends();
        }
        finally
        {
            closed = true;
            if (null != runner)
            {
                runner.close();
            }
            else
            {
                group.removeTask(agent);
            }
            gsi.close();
        }
    }

    private void drainSends()
    {
        final long deadline = System.nanoTime() + CLOSE_DRAIN_NS;
        while (!call(gsi::idle) && System.nanoTime() - deadline < 0)
        {
            if (null != group)
            {
                group.progress();
            }
            else
            {
                Thread.onSpinWait();
            }
        }
    }

    // ------------------------------------------------------------------------------------------------------------
    // CM thread services for RdmaCmId
    // ------------------------------------------------------------------------------------------------------------

    /**
     * Run on the CM's thread and return the result (directly when already on it, or in INVOKER mode).
     */
    <T> T call(final Callable<T> command)
    {
        if (closed)
        {
            throw new IllegalStateException("this RdmaCm is closed");
        }
        return commands.call(null == runner || Thread.currentThread() == cmThread, command);
    }

    RdmaCmId newId(final RdmaCmId parent, final int portSpace)
    {
        final RdmaCmId id = new RdmaCmId(this, nextNumber++, parent, portSpace);
        ids.add(id);
        return id;
    }

    void forget(final RdmaCmId id)
    {
        ids.remove(id);
    }

    void publish(final RdmaCmEvent event)
    {
        events.addLast(event);
    }

    void noteError(final Throwable error)
    {
        errors.incrementAndGet();
        lastError = error;
    }

    void bindListener(final RdmaCmId id, final InetSocketAddress address)
    {
        listeners.bind(id, address);
    }

    void unbindListener(final RdmaCmId id)
    {
        listeners.unbind(id);
        for (final RdmaCmId other : new ArrayList<>(ids))
        {
            if (other.listener() == id && RdmaCmId.State.CONNECT_REQUEST == other.state())
            {
                other.reject(null);
                other.destroy();
            }
        }
    }

    RdmaCmId findListener(final int portSpace, final int port, final InetAddress destination)
    {
        return listeners.find(portSpace, port, destination);
    }

    CmConnection connect(final RdmaCmId id, final InetSocketAddress destination, final ConnParam param,
        final CmHandler handler)
    {
        return connector.connect(id, destination, param, handler);
    }

    void accept(final RdmaCmId id, final CmConnection c, final ConnParam param)
    {
        connector.accept(id, c, param);
    }

    void reject(final CmConnection c, final byte[] privateData)
    {
        if (CmState.SIDR_REQ_RCVD == c.state())
        {
            // cma.c rdma_reject for UD: cma_send_sidr_rep(IB_SIDR_REJECT) with the private data.
            cm.sidrReply(c, CmSidrRepMessage.STATUS_REJECT, 0, 0, privateData);
            return;
        }
        cm.reject(c, CmRejectReason.CONSUMER_DEFINED.code(), privateData);
    }

    void sendRtu(final CmConnection c)
    {
        cm.sendRtu(c, null);
    }

    void disconnect(final CmConnection c)
    {
        cm.disconnect(c, null);
    }

    void destroyConnection(final CmConnection c)
    {
        connector.releasePort(c);
        cm.destroy(c);
    }

    /**
     * The CM's work: commands from other threads, MADs from QP1, timers. Guards against running inside itself
     * (its own poll of QP1's CQ drives the progress group in INVOKER mode).
     */
    private final class CmAgent implements Agent, ProgressTask
    {
        private CountDownLatch started;
        private boolean running;

        /**
         * Record the agent thread as the CM's, then let the constructor return.
         */
        public void onStart()
        {
            cmThread = Thread.currentThread();
            if (null != started)
            {
                started.countDown();
            }
        }

        /**
         * One round: commands from other threads, MADs from QP1, due timers.
         *
         * @return work done.
         */
        public int doWork()
        {
            if (running || closed)
            {
                return 0;
            }
            running = true;
            try
            {
                int work = 0;
                work += commands.drain();
                work += gsi.poll(cm::onMad);
                work += cm.processTimers();
                return work;
            }
            catch (final RuntimeException ex)
            {
                noteError(ex);
                return 1;
            }
            finally
            {
                running = false;
            }
        }

        /**
         * @return the CM's earliest timer, for simulated time.
         */
        public long earliestDeadlineNs()
        {
            return cm.earliestDeadlineNs();
        }

        /**
         * @return the agent thread's name.
         */
        public String roleName()
        {
            return "roce-cm-" + device.name();
        }
    }
}
