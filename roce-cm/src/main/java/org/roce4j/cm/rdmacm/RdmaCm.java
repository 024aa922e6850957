package org.roce4j.cm.rdmacm;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.cm.ib.CmConfig;
import org.roce4j.cm.ib.CmConnection;
import org.roce4j.cm.ib.CmCounters;
import org.roce4j.cm.ib.CmHandler;
import org.roce4j.cm.ib.CmListener;
import org.roce4j.cm.ib.CmReplyParams;
import org.roce4j.cm.ib.CmRequestParams;
import org.roce4j.cm.ib.GsiPort;
import org.roce4j.cm.ib.IbCm;
import org.roce4j.cm.ib.MadAddress;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.provider.CommandQueue;
import org.roce4j.verbs.DeviceAttributes;
import org.roce4j.verbs.ProgressGroup;
import org.roce4j.verbs.ProgressTask;
import org.roce4j.verbs.RdmaDevice;
import org.roce4j.verbs.ThreadingMode;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.header.BthHeader;
import org.roce4j.wire.mad.CmReqMessage;
import org.roce4j.wire.mad.CmRejectReason;
import org.roce4j.wire.mad.CmaHeader;
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
    /** Linux's default ip_local_port_range, where rdma_cm picks an active side's port. */
    private static final int EPHEMERAL_PORTS = 60999 - 32768 + 1;

    private final RdmaDevice device;
    private final RdmaCmOptions options;
    private final CmCounters counters = new CmCounters();
    private final GsiPort gsi;
    private final IbCm cm;
    private final LinkAddress linkAddress;
    private final LinkedBlockingDeque<RdmaCmEvent> events = new LinkedBlockingDeque<>();
    private final CommandQueue commands = new CommandQueue("the CM thread", CALL_TIMEOUT_MS);
    private final Int2ObjectHashMap<List<RdmaCmId>> listenersByPort = new Int2ObjectHashMap<>();
    private final Set<Integer> activePorts = new HashSet<>();
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
        this.linkAddress = device.link().address();
        this.gsi = new GsiPort(device, options.gsiDepth());
        this.cm = new IbCm(gsi, options.cmConfig(), device.clock(), options.ids(), caGuid(device),
            (high, low) -> isLocalGid(device, high, low), counters);
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
        return call(() -> newId(null));
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

    RdmaCmId newId(final RdmaCmId parent)
    {
        final RdmaCmId id = new RdmaCmId(this, nextNumber++, parent);
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
        final InetAddress ip = address.getAddress();
        if (!ip.isAnyLocalAddress() && !isOurAddress(ip))
        {
            throw new IllegalArgumentException("cannot bind to " + ip.getHostAddress() + ": not an address of " +
                device.name() + " (" + ourAddresses() + ")");
        }
        final int port = address.getPort();
        List<RdmaCmId> onPort = listenersByPort.get(port);
        if (null != onPort)
        {
            for (final RdmaCmId other : onPort)
            {
                final InetAddress bound = other.localAddress().getAddress();
                if (bound.isAnyLocalAddress() || ip.isAnyLocalAddress() || bound.equals(ip))
                {
                    throw new IllegalStateException("address in use: " + ip.getHostAddress() + " port " + port +
                        " overlaps " + other);
                }
            }
        }
        else
        {
            onPort = new ArrayList<>();
            listenersByPort.put(port, onPort);
            cm.listen(RdmaCmServiceId.serviceId(RdmaCmServiceId.PS_TCP, port), this::onRequest);
        }
        onPort.add(id);
    }

    void unbindListener(final RdmaCmId id)
    {
        final int port = id.localAddress().getPort();
        final List<RdmaCmId> onPort = listenersByPort.get(port);
        if (null != onPort)
        {
            onPort.remove(id);
            if (onPort.isEmpty())
            {
                listenersByPort.remove(port);
                cm.cancelListen(RdmaCmServiceId.serviceId(RdmaCmServiceId.PS_TCP, port));
            }
        }
        for (final RdmaCmId other : new ArrayList<>(ids))
        {
            if (other.listener() == id && RdmaCmId.State.CONNECT_REQUEST == other.state())
            {
                other.reject(null);
                other.destroy();
            }
        }
    }

    /**
     * The IB CM's listener for every port someone listens on (cma.c cma_ib_req_handler).
     */
    private int onRequest(final CmConnection c)
    {
        if (CmReqMessage.TRANSPORT_RC != c.transportType())
        {
            // cma_ib_check_req_qp_type: the listener is RC; rdma_cm refuses, the CM rejects "consumer defined".
            return CmRejectReason.CONSUMER_DEFINED.code();
        }
        final byte[] data = c.privateData();
        final CmaHeader header = new CmaHeader().wrap(new UnsafeBuffer(data), 0);
        final int ipVersion = header.ipVersion();
        if (CmaHeader.CMA_VERSION != header.version() || (4 != ipVersion && 6 != ipVersion))
        {
            // cma_save_ip_info: -EINVAL / -EAFNOSUPPORT, so the kernel's CM rejects with CONSUMER_DEFINED.
            return CmRejectReason.CONSUMER_DEFINED.code();
        }
        final InetAddress source = 4 == ipVersion ? Gid.ofIpv4(header.sourceIpv4()).toInetAddress() :
            new Gid(header.sourceHigh(), header.sourceLow()).toInetAddress();
        final InetAddress destination = 4 == ipVersion ? Gid.ofIpv4(header.destinationIpv4()).toInetAddress() :
            new Gid(header.destinationHigh(), header.destinationLow()).toInetAddress();
        final RdmaCmId listener = findListener(RdmaCmServiceId.port(c.serviceId()), destination);
        if (null == listener)
        {
            // cma_match_private_data: no listener on this port takes that destination address.
            return CmRejectReason.CONSUMER_DEFINED.code();
        }
        if (c.pathMtu() < 1 || c.pathMtu() > device.activeMtu().verbsValue())
        {
            return CmRejectReason.INVALID_MTU.code();
        }
        if (listener.pendingRequests() >= listener.backlog())
        {
            // ucma: no backlog left: -ENOMEM, and cm.c drops the REQ without a REJ so the sender retries.
            return CmListener.DROP;
        }
        final RdmaCmId child = newId(listener);
        listener.addPending();
        // cm.c cm_format_req_event: the peer's depths seen from this side (its initiator depth is our responder
        // resources), capped by the device as librdmacm does for rdma_accept(NULL).
        final ConnParam peer = new ConnParam()
            .responderResources(Math.min(c.remoteInitiatorDepth(), DeviceAttributes.MAX_QP_RD_ATOM))
            .initiatorDepth(Math.min(c.remoteResponderResources(), DeviceAttributes.MAX_QP_INIT_RD_ATOM))
            .retryCount(c.retryCount())
            .rnrRetryCount(c.rnrRetryCount());
        child.asRequest(c, new InetSocketAddress(destination, RdmaCmServiceId.port(c.serviceId())),
            new InetSocketAddress(source, header.port()), peer);
        final byte[] user = new byte[data.length - CmaHeader.LENGTH];
        System.arraycopy(data, CmaHeader.LENGTH, user, 0, user.length);
        publish(new RdmaCmEvent(RdmaCmEventType.CONNECT_REQUEST, child, listener, 0, user, peer,
            "connection request from " + source.getHostAddress() + ":" + header.port() + " to port " +
            RdmaCmServiceId.port(c.serviceId())));
        return CmListener.PENDING;
    }

    private RdmaCmId findListener(final int port, final InetAddress destination)
    {
        final List<RdmaCmId> onPort = listenersByPort.get(port);
        if (null == onPort)
        {
            return null;
        }
        RdmaCmId wildcard = null;
        for (final RdmaCmId id : onPort)
        {
            final InetAddress bound = id.localAddress().getAddress();
            if (bound.equals(destination))
            {
                return id;
            }
            // An IPv4 wildcard takes IPv4 only; an IPv6 wildcard takes both (Linux's default bindv6only=0).
            if (bound.isAnyLocalAddress() && (bound instanceof Inet6Address || destination instanceof Inet4Address))
            {
                wildcard = id;
            }
        }
        return wildcard;
    }

    CmConnection connect(final RdmaCmId id, final InetSocketAddress destination, final ConnParam param,
        final CmHandler handler)
    {
        final InetAddress ip = destination.getAddress();
        if (null == ip)
        {
            throw new IllegalArgumentException("unresolved destination " + destination);
        }
        final boolean v4 = ip instanceof Inet4Address;
        final long remoteHigh;
        final long remoteLow;
        final long localHigh;
        final long localLow;
        final InetAddress localIp;
        if (v4)
        {
            remoteHigh = 0;
            remoteLow = Gid.ipv4MappedLow(ipv4Of(ip));
            localHigh = 0;
            localLow = linkAddress.ipv4MappedLow();
            localIp = Gid.ofIpv4(linkAddress.ipv4()).toInetAddress();
        }
        else
        {
            final Gid remote = Gid.of(ip);
            remoteHigh = remote.high();
            remoteLow = remote.low();
            // The kernel's source address selection: a link-local peer from our link-local GID, any other from
            // our first global IPv6 address (RFC 6724 rule 2, matching scope).
            final Gid local = Gid.isLinkLocal(remoteHigh) ? linkAddress.linkLocal() : firstGlobalIpv6();
            if (null == local)
            {
                throw new IllegalArgumentException("cannot reach " + ip.getHostAddress() + ": this device has no " +
                    "global IPv6 address (" + ourAddresses() + "), so it reaches link-local fe80:: peers only");
            }
            localHigh = local.high();
            localLow = local.low();
            localIp = local.toInetAddress();
        }
        if (isOurAddress(ip))
        {
            throw new IllegalArgumentException("cannot connect to " + ip.getHostAddress() + ": it is this device's " +
                "own address (loopback through one device is not supported)");
        }
        final int sourcePort = allocatePort();
        final int dport = destination.getPort();
        final byte[] privateData = new byte[CmaHeader.LENGTH + param.privateData().length];
        final CmaHeader header = new CmaHeader().wrap(new UnsafeBuffer(privateData), 0);
        if (v4)
        {
            header.ipv4(sourcePort, linkAddress.ipv4(), ipv4Of(ip));
        }
        else
        {
            header.ipv6(sourcePort, localHigh, localLow, remoteHigh, remoteLow);
        }
        System.arraycopy(param.privateData(), 0, privateData, CmaHeader.LENGTH, param.privateData().length);
        final CmRequestParams request = new CmRequestParams()
            .serviceId(RdmaCmServiceId.serviceId(RdmaCmServiceId.PS_TCP, dport))
            .localQpn(id.qp().qpNum())
            .startingPsn(options.ids().nextPsn())
            .pathMtu(device.activeMtu().verbsValue())
            .responderResources(Math.min(param.responderResources(), DeviceAttributes.MAX_QP_RD_ATOM))
            .initiatorDepth(Math.min(param.initiatorDepth(), DeviceAttributes.MAX_QP_INIT_RD_ATOM))
            .retryCount(param.retryCount())
            .rnrRetryCount(param.rnrRetryCount())
            .localGid(localHigh, localLow)
            .remoteGid(remoteHigh, remoteLow)
            .flowLabel(roceFlowLabel(sourcePort, dport))
            .hopLimit(CmRequestParams.DEFAULT_HOP_LIMIT)
            .trafficClass(Math.max(0, id.tos()))
            .privateData(privateData);
        id.addresses(new InetSocketAddress(localIp, sourcePort), destination);
        final CmConnection c = cm.connect(request, handler, new MadAddress(remoteHigh, remoteLow,
            BthHeader.GSI_QPN));
        c.context(id);
        return c;
    }

    /**
     * cma.c cma_get_roce_udp_flow_label: for RoCEv2 the flow label is sport * 31 + dport, 20 bits, over IPv4 and over
     * IPv6 when the source address carries no flow label of its own (rxe's REQ over IPv6 names it too) (rping's
     * REQ in the golden capture: ports 0xd40f, 18003 give 0x9f424; rxe then sends the connection's packets from
     * UDP port 0xf403).
     */
    static int roceFlowLabel(final int sourcePort, final int destinationPort)
    {
        return (sourcePort * 31 + destinationPort) & 0xF_FFFF;
    }

    void accept(final RdmaCmId id, final CmConnection c, final ConnParam param)
    {
        final ConnParam peer = id.peerParam();
        final int responderResources = null == param ? peer.responderResources() :
            Math.min(param.responderResources(), peer.responderResources());
        final int initiatorDepth = null == param ? peer.initiatorDepth() :
            Math.min(param.initiatorDepth(), peer.initiatorDepth());
        final int rnrRetry = null == param ? 7 : param.rnrRetryCount();
        final CmReplyParams reply = new CmReplyParams()
            .localQpn(id.qp().qpNum())
            .startingPsn(options.ids().nextPsn())
            .responderResources(responderResources)
            .initiatorDepth(initiatorDepth)
            .rnrRetryCount(rnrRetry)
            .privateData(null == param ? new byte[0] : param.privateData());
        // The QP takes the REP's values: record them on the connection first, as the REP will carry them.
        cm.prepareReply(c, reply);
        try
        {
            id.bringUp(c, options.minRnrTimer());
        }
        catch (final RuntimeException ex)
        {
            id.moveQpToError();
            cm.reject(c, CmRejectReason.CONSUMER_DEFINED.code(), null);
            throw new IllegalStateException("rdma_accept: could not move QP " + id.qp().qpNum() + " to RTR/RTS (" +
                ex.getMessage() + "); the request was rejected", ex);
        }
        cm.accept(c, reply);
    }

    void reject(final CmConnection c, final byte[] privateData)
    {
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
        final Object context = c.context();
        if (context instanceof RdmaCmId)
        {
            activePorts.remove(((RdmaCmId)context).localAddress().getPort());
        }
        cm.destroy(c);
    }

    private int allocatePort()
    {
        for (int i = 0; i < EPHEMERAL_PORTS; i++)
        {
            final int port = options.ids().nextPort();
            if (activePorts.add(port))
            {
                return port;
            }
        }
        throw new IllegalStateException("no free source port in 32768..60999");
    }

    // ------------------------------------------------------------------------------------------------------------
    // Addresses
    // ------------------------------------------------------------------------------------------------------------

    private boolean isOurAddress(final InetAddress ip)
    {
        if (ip instanceof Inet4Address)
        {
            return linkAddress.ownsIpv4(ipv4Of(ip));
        }
        final Gid gid = Gid.of(ip);
        return linkAddress.ownsIpv6(gid.high(), gid.low());
    }

    private Gid firstGlobalIpv6()
    {
        for (final Gid gid : linkAddress.ipv6s())
        {
            if (!Gid.isLinkLocal(gid.high()))
            {
                return gid;
            }
        }
        return null;
    }

    private String ourAddresses()
    {
        final StringBuilder text = new StringBuilder();
        for (final Gid gid : linkAddress.ips())
        {
            text.append(gid.toInetAddress().getHostAddress()).append(", ");
        }
        return text.append(linkAddress.linkLocal().toInetAddress().getHostAddress()).toString();
    }

    private static int ipv4Of(final InetAddress ip)
    {
        return ByteBuffer.wrap(ip.getAddress()).order(ByteOrder.BIG_ENDIAN).getInt();
    }

    private static boolean isLocalGid(final RdmaDevice device, final long high, final long low)
    {
        return device.findGidIndex(high, low) >= 0;
    }

    /**
     * The node GUID rxe derives from the MAC (EUI-64); a link without a MAC of its own (kernel UDP) gets one from
     * its IPv4 address instead, so two such roce4j nodes do not share a GUID.
     */
    private static long caGuid(final RdmaDevice device)
    {
        final LinkAddress address = device.link().address();
        if (0 != address.mac())
        {
            return device.queryDevice().nodeGuid();
        }
        // 0x02: a locally administered EUI-64, then "ff:fe" style filler and the IPv4 address.
        return 0x0200_00FF_0000_0000L | (address.ipv4() & 0xFFFF_FFFFL);
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
