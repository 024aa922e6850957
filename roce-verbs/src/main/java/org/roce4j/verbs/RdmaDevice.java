package org.roce4j.verbs;

import java.io.IOException;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.NanoClock;
import org.roce4j.ib.AhAttributes;
import org.roce4j.ib.AsyncEvent;
import org.roce4j.ib.Mtu;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.wire.addr.Gid;
import org.roce4j.transport.link.Link;
import org.roce4j.transport.link.LinkSpecs;
import org.roce4j.transport.provider.DeviceOps;
import org.roce4j.transport.provider.Provider;
import org.roce4j.wire.AgronaAccess;

/**
 * An open RDMA device (ibv_open_device / struct ibv_context): one roce4j engine over one {@link Link}, with one
 * port. It creates protection domains and completion queues, answers ibv_query_device / ibv_query_port /
 * ibv_query_gid, delivers asynchronous events and exposes every counter. It reaches the engine only through the
 * provider interfaces ({@link Provider}, {@link DeviceOps}), as libibverbs reaches a provider through its
 * verbs_context_ops.
 *
 * <pre>{@code
 * try (RdmaDevice a = RdmaDevice.open("memory:10.0.0.1");      // a port of this JVM's in-memory fabric
 *      RdmaDevice b = RdmaDevice.open("udp:192.168.1.20"))     // the kernel's UDP stack, a real network
 * { ... }
 * }</pre>
 *
 * <p>Threading ({@link DeviceOptions#threadingMode}):
 * <ul>
 *   <li>{@link ThreadingMode#INVOKER} (the default): the application's thread runs the engine. Every poll and wait on
 *   the device's completion queues, {@link #progress()} and {@link #getAsyncEvent(long)} run one duty cycle of every
 *   engine in the device's {@link ProgressGroup}: the one given in the options, or else the opening thread's
 *   ({@link ProgressGroup#ofCurrentThread()}), so devices that one thread opens and drives always run together. Use
 *   the device from that one thread only (a second thread running the group gets an error that says so).</li>
 *   <li>{@link ThreadingMode#DEDICATED}: an Agrona agent thread per device runs the engine. Control calls (create,
 *   modify, destroy, register) may come from any thread and are run on the engine thread; posting to a QP must come
 *   from one thread at a time per QP, and polling a CQ from one thread at a time per CQ.</li>
 * </ul>
 */
public final class RdmaDevice implements AutoCloseable
{
    /** The only port number of a roce4j device. */
    public static final int PORT_NUM = 1;

    private final String name;
    private final Link link;
    private final DeviceOps engine;
    private final ThreadingMode mode;
    private final EngineRunner runner;
    private final NanoClock clock;
    private final boolean allowHeapMemory;
    private final DeviceCounters counters;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Object lock = new Object();
    private final RegionIndex regions = new RegionIndex();

    private RdmaDevice(final Link link, final DeviceOptions options)
    {
        EngineRunner.checkOptions(options);
        this.link = link;
        this.mode = options.threadingMode();
        this.name = null != options.name() ? options.name() : "roce4j_" + link.name();
        this.allowHeapMemory = options.allowHeapMemory();
        this.engine = Provider.load().open(link, options.engineConfig());
        this.clock = engine.clock();
        this.counters = new DeviceCounters(engine.counters(), engine.frameCounters(), link.counters());
        this.runner = new EngineRunner(engine, name, options);
    }

    /**
     * Open a device over a link (ibv_open_device). The device owns the link from now on and closes it.
     *
     * @param link    the medium.
     * @param options threading mode, engine configuration and policies.
     * @return the open device.
     */
    public static RdmaDevice open(final Link link, final DeviceOptions options)
    {
        AgronaAccess.require();
        ProgressGroup.requireNonNull(link, "link");
        ProgressGroup.requireNonNull(options, "options");
        return new RdmaDevice(link, options);
    }

    /**
     * Open a device in INVOKER mode with default options: it joins the opening thread's progress group.
     *
     * @param link the medium.
     * @return the open device.
     */
    public static RdmaDevice open(final Link link)
    {
        return open(link, DeviceOptions.invoker());
    }

    /**
     * Open a device over the link a spec names, the specs the roce command takes with {@code --link} (parsed by
     * {@link LinkSpecs}): {@code memory:IP[,mac=MAC][,mtu=1500]} for a port of this JVM's in-memory fabric,
     * {@code udp:IP[,port=4791]} for the kernel's UDP stack, {@code pcap:IFACE[,ip=IP]} for raw Ethernet,
     * {@code tunnel:...} for a QEMU guest. The device owns the link and closes it.
     *
     * @param linkSpec the link.
     * @param options  threading mode, engine configuration and policies.
     * @return the open device.
     * @throws IOException              when the medium cannot be opened.
     * @throws IllegalArgumentException for a malformed spec, an unknown interface, an address that is not local.
     * @throws IllegalStateException    when a port or address is in use, or raw capture needs root.
     */
    public static RdmaDevice open(final String linkSpec, final DeviceOptions options) throws IOException
    {
        AgronaAccess.require();
        ProgressGroup.requireNonNull(linkSpec, "linkSpec");
        ProgressGroup.requireNonNull(options, "options");
        EngineRunner.checkOptions(options);
        final Link link = LinkSpecs.open(linkSpec);
        try
        {
            return new RdmaDevice(link, options);
        }
        catch (final RuntimeException ex)
        {
            link.close();
            throw ex;
        }
    }

    /**
     * Open a device over the link a spec names, in INVOKER mode with default options (see
     * {@link #open(String, DeviceOptions)}).
     *
     * @param linkSpec the link, e.g. {@code "memory:10.0.0.1"} or {@code "udp:192.168.1.20"}.
     * @return the open device.
     * @throws IOException when the medium cannot be opened.
     */
    public static RdmaDevice open(final String linkSpec) throws IOException
    {
        return open(linkSpec, DeviceOptions.invoker());
    }

    // ------------------------------------------------------------------------------------------------------------
    // Queries
    // ------------------------------------------------------------------------------------------------------------

    /**
     * @return the device name.
     */
    public String name()
    {
        return name;
    }

    /**
     * @return who runs the engine.
     */
    public ThreadingMode threadingMode()
    {
        return mode;
    }

    /**
     * @return the device's limits and capabilities (ibv_query_device).
     */
    public DeviceAttributes queryDevice()
    {
        checkOpen();
        return new DeviceAttributes(
            DeviceAttributes.FW_VER,
            link.address().linkLocalLow(),
            DeviceAttributes.VENDOR_ID,
            DeviceAttributes.MAX_MR_SIZE,
            DeviceAttributes.MAX_QP,
            DeviceAttributes.MAX_QP_WR,
            DeviceAttributes.MAX_SGE,
            DeviceAttributes.MAX_SGE_RD,
            DeviceAttributes.MAX_CQ,
            DeviceAttributes.MAX_CQE,
            DeviceAttributes.MAX_MR,
            DeviceAttributes.MAX_PD,
            DeviceAttributes.MAX_QP_RD_ATOM,
            DeviceAttributes.MAX_QP_INIT_RD_ATOM,
            DeviceAttributes.MAX_RES_RD_ATOM,
            AtomicCapability.HCA,
            DeviceAttributes.MAX_AH,
            DeviceAttributes.MAX_SRQ,
            DeviceAttributes.MAX_SRQ_WR,
            DeviceAttributes.MAX_SRQ_SGE,
            DeviceAttributes.MAX_PKEYS,
            DeviceAttributes.LOCAL_CA_ACK_DELAY,
            1,
            DeviceAttributes.MAX_INLINE_DATA,
            DeviceAttributes.MAX_MSG_SIZE);
    }

    /**
     * @param portNum must be 1.
     * @return the port's attributes (ibv_query_port).
     */
    public PortAttributes queryPort(final int portNum)
    {
        checkOpen();
        checkPort(portNum);
        return new PortAttributes(PortState.ACTIVE, Mtu.MTU_4096, engine.activeMtu(), engine.gidTableLength(),
            PortAttributes.CAP_CM_SUP, DeviceAttributes.MAX_MSG_SIZE, DeviceAttributes.MAX_PKEYS,
            PortAttributes.LINK_LAYER_ETHERNET, 0, 0);
    }

    /**
     * @return the attributes of port 1.
     */
    public PortAttributes queryPort()
    {
        return queryPort(PORT_NUM);
    }

    /**
     * @param index GID table index, as rxe builds the table: 0 the IPv6 link-local GID made from the MAC, then one
     *              IPv4-mapped GID per IPv4 address of the link, then each global IPv6 address.
     * @return the GID (ibv_query_gid on port 1).
     */
    public Gid queryGid(final int index)
    {
        checkOpen();
        checkGidIndex(index, "GID index");
        return new Gid(engine.gidHigh(index), engine.gidLow(index));
    }

    /**
     * Find a GID in the GID table (ibv_find_gid_index, without the GID type: every roce4j GID is RoCEv2). Reads
     * only the table, which never changes, so it works on a closed device too.
     *
     * @param gidHigh high 64 bits of the GID.
     * @param gidLow  low 64 bits.
     * @return its index, or -1 when it is not one of this device's GIDs.
     */
    public int findGidIndex(final long gidHigh, final long gidLow)
    {
        return engine.gidIndexOf(gidHigh, gidLow);
    }

    /**
     * Fill address-handle attributes that answer the sender of a received UD datagram (ibv_init_ah_from_wc): the
     * destination GID is the packet's source address, read from the 40-byte network header area the engine writes at
     * the start of every UD receive buffer (union rdma_network_hdr: 20 zero bytes and the IPv4 header, or the IPv6
     * header; protocol-facts A.8), and the source GID index is the local GID the packet was sent to. As in
     * libibverbs, the hop limit is 0xFF and the traffic class (and IPv6 flow label) are the packet's; the UDP
     * destination port of RoCEv2 is always 4791, and the link resolves the MAC from the IP address.
     *
     * @param wc     a successful UD or GSI receive completion with {@link WorkCompletion#hasGrh()}.
     * @param buffer the receive buffer (or any buffer holding its first 40 bytes).
     * @param offset where the 40-byte header area starts in {@code buffer}.
     * @param out    filled (port 1, SL 0).
     * @return out.
     * @throws IllegalArgumentException when the completion has no GRH, or the header area holds neither an IPv4
     *                                  nor an IPv6 header, or the packet was not sent to one of this device's GIDs.
     */
    public AhAttributes initAhFromWc(
        final WorkCompletion wc, final DirectBuffer buffer, final int offset, final AhAttributes out)
    {
        return ReplyAddress.fill(engine, wc, buffer, offset, out);
    }

    /**
     * @return the port's active MTU.
     */
    public Mtu activeMtu()
    {
        return engine.activeMtu();
    }

    /**
     * @return the link the device runs over.
     */
    public Link link()
    {
        return link;
    }

    /**
     * @return the clock the engine's timers and this device's waits use.
     */
    public NanoClock clock()
    {
        return clock;
    }

    /**
     * @return the progress group (INVOKER mode), or null.
     */
    public ProgressGroup progressGroup()
    {
        return runner.group();
    }

    /**
     * @return the agent thread (DEDICATED mode), or null.
     */
    public Thread agentThread()
    {
        return runner.agentThread();
    }

    /**
     * @return exceptions the agent thread's duty cycle raised (DEDICATED mode; 0 when healthy).
     */
    public long agentErrors()
    {
        return runner.agentErrors();
    }

    /**
     * @return the last exception the agent thread's duty cycle raised, or null.
     */
    public Throwable lastAgentError()
    {
        return runner.lastAgentError();
    }

    // ------------------------------------------------------------------------------------------------------------
    // Resources
    // ------------------------------------------------------------------------------------------------------------

    /**
     * Allocate a protection domain (ibv_alloc_pd).
     *
     * @return the new PD.
     */
    public ProtectionDomain allocPd()
    {
        final int handle = control(engine::allocHandle);
        return new ProtectionDomain(this, handle);
    }

    /**
     * Create a completion queue (ibv_create_cq).
     *
     * @param cqe entries it must hold, 1 .. {@link DeviceAttributes#MAX_CQE}.
     * @return the new CQ.
     */
    public CompletionQueue createCq(final int cqe)
    {
        return createCq(cqe, null);
    }

    /**
     * Create a completion queue whose events go to a completion channel (ibv_create_cq with a channel).
     *
     * @param cqe     entries it must hold, 1 .. {@link DeviceAttributes#MAX_CQE}.
     * @param channel a channel of this device, or null for none.
     * @return the new CQ.
     * @throws IllegalArgumentException for a bad cqe or a channel of another device.
     * @throws IllegalStateException    when the channel is closed.
     */
    public CompletionQueue createCq(final int cqe, final CompletionChannel channel)
    {
        if (cqe < 1 || cqe > DeviceAttributes.MAX_CQE)
        {
            throw new IllegalArgumentException("cqe must be 1.." + DeviceAttributes.MAX_CQE + ", got " + cqe);
        }
        if (null != channel)
        {
            if (this != channel.device())
            {
                throw new IllegalArgumentException("the completion channel belongs to device " +
                    channel.device().name() + ", not " + name);
            }
            channel.checkOpen();
        }
        return new CompletionQueue(this, control(() -> engine.createCq(cqe)), channel);
    }

    /**
     * Create a completion event channel (ibv_create_comp_channel): one thread waits on it for the events of every CQ
     * created with it.
     *
     * @return the channel.
     */
    public CompletionChannel createCompChannel()
    {
        checkOpen();
        return new CompletionChannel(this);
    }

    // ------------------------------------------------------------------------------------------------------------
    // Progress and events
    // ------------------------------------------------------------------------------------------------------------

    /**
     * INVOKER mode: run one duty cycle of every engine in this device's progress group. DEDICATED mode: nothing
     * (the agent thread runs the engine).
     *
     * @return work done.
     */
    public int progress()
    {
        checkOpen();
        return runner.progress();
    }

    /**
     * @return the next asynchronous event (QP errors, COMM_EST, SQ_DRAINED, SRQ limit, CQ error, port events), or
     *     null when none is waiting. One thread at a time may take events. Does not run the engine.
     */
    public AsyncEvent pollAsyncEvent()
    {
        return engine.pollEvent();
    }

    /**
     * Wait for the next asynchronous event (ibv_get_async_event with a timeout). In INVOKER mode this drives the
     * progress group while it waits.
     *
     * @param timeoutNs longest wait, in the engine clock's nanoseconds; Long.MAX_VALUE waits forever.
     * @return the event, or null on timeout.
     */
    public AsyncEvent getAsyncEvent(final long timeoutNs)
    {
        checkOpen();
        requireTimeout(timeoutNs);
        return runner.awaitEvent(timeoutNs, clock);
    }

    /**
     * @return every counter of the device (live).
     */
    public DeviceCounters counters()
    {
        return counters;
    }

    /**
     * @return one line per non-zero counter (see {@link DeviceCounters#describe()}).
     */
    public String describeCounters()
    {
        return counters.describe();
    }

    /**
     * Close the device (ibv_close_device): stop the agent thread (DEDICATED), leave the progress group (INVOKER)
     * and close the link. Idempotent. Resources of the device become unusable.
     */
    public void close()
    {
        if (!closed.compareAndSet(false, true))
        {
            return;
        }
        runner.close();
    }

    /**
     * @return true once {@link #close()} was called.
     */
    public boolean isClosed()
    {
        return closed.get();
    }

    /**
     * @return e.g. {@code roce4j_test:... (INVOKER, active MTU 1024)}.
     */
    public String toString()
    {
        return name + " (" + mode + ", active MTU " + engine.activeMtu().bytes() + ")";
    }

    // ------------------------------------------------------------------------------------------------------------
    // Package services
    // ------------------------------------------------------------------------------------------------------------

    /**
     * Run a control operation on the engine thread (directly in INVOKER mode), serialised with other control calls.
     */
    <T> T control(final Callable<T> command)
    {
        checkOpen();
        synchronized (lock)
        {
            return engine.invoke(command);
        }
    }

    /**
     * @return the provider's operations on this device.
     */
    DeviceOps ops()
    {
        return engine;
    }

    void checkOpen()
    {
        if (closed.get())
        {
            throw new IllegalStateException("device " + name + " is closed");
        }
    }

    boolean allowsHeapMemory()
    {
        return allowHeapMemory;
    }

    static void checkPort(final int portNum)
    {
        if (PORT_NUM != portNum)
        {
            throw new IllegalArgumentException("port_num must be 1 (a roce4j device has one port), got " + portNum);
        }
    }

    void checkGidIndex(final int index, final String what)
    {
        final int length = engine.gidTableLength();
        if (index < 0 || index >= length)
        {
            throw new IllegalArgumentException(what + " " + index + " is not in the GID table (" + length +
                " entries: " + engine.gidTableListing() + ")");
        }
    }

    /**
     * ibv_find_gid_index: where a GID sits in this device's table.
     *
     * @param gid a GID.
     * @return its index, or -1 when the table does not hold it.
     */
    public int gidIndexOf(final Gid gid)
    {
        for (int i = 0; i < engine.gidTableLength(); i++)
        {
            if (gid.high() == engine.gidHigh(i) && gid.low() == engine.gidLow(i))
            {
                return i;
            }
        }
        return -1;
    }

    /**
     * The source GID for a destination, as the kernel picks a source address (RFC 6724: the same family and scope):
     * the link-local GID 0 for a link-local destination, the first IPv4-mapped GID for an IPv4-mapped one, the first
     * global IPv6 GID for any other; an IPv6 multicast group on a port without a global IPv6 GID is reached from the
     * link-local one (RFC 6724 rule 2 prefers the matching scope, but a link-local source is the only candidate).
     *
     * @param destination the peer's GID.
     * @return the index, or -1 when the table has no GID of that kind.
     */
    public int sourceGidIndex(final Gid destination)
    {
        if (Gid.isLinkLocal(destination.high()))
        {
            return 0;
        }
        final boolean ipv4Mapped = destination.isIpv4Mapped();
        for (int i = 1; i < engine.gidTableLength(); i++)
        {
            if (ipv4Mapped == Gid.isIpv4Mapped(engine.gidHigh(i), engine.gidLow(i)))
            {
                return i;
            }
        }
        return !ipv4Mapped && destination.isMulticast() ? 0 : -1;
    }

    static void requireTimeout(final long timeoutNs)
    {
        if (timeoutNs < 0)
        {
            throw new IllegalArgumentException("timeout must be >= 0 ns (Long.MAX_VALUE waits forever), got " +
                timeoutNs);
        }
    }

    RegionIndex regions()
    {
        return regions;
    }
}
