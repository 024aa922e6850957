package org.roce4j.cm.rdmacm;

import java.net.InetAddress;
import java.net.InetSocketAddress;

import org.roce4j.cm.ib.CmConnection;
import org.roce4j.cm.ib.CmHandler;
import org.roce4j.cm.ib.CmState;
import org.roce4j.ib.AhAttributes;
import org.roce4j.ib.QpType;
import org.roce4j.verbs.ProtectionDomain;
import org.roce4j.verbs.QpInitAttributes;
import org.roce4j.verbs.QueuePair;
import org.roce4j.wire.mad.RdmaCmServiceId;

/**
 * One rdma_cm identifier (struct rdma_cm_id), in the TCP port space (RC) or the UDP port space (UD): a listener on an
 * IP address and port, or one connection, active (from {@link #connect}) or passive (from a CONNECT_REQUEST event).
 *
 * <p>In the UDP port space ({@code RdmaCm.createId(RdmaCmServiceId.PS_UDP)}, rdma_create_id with RDMA_PS_UDP) a
 * "connection" is a service ID resolution (IBA 12.11): {@link #createQp} takes UD QP attributes and brings the QP to
 * RTS with the Q_Key {@link UdParam#RDMA_UDP_QKEY} (librdmacm ucma_init_ud_qp), {@link #connect} sends a SIDR_REQ and ESTABLISHED
 * carries the peer's {@link UdParam} (or UNREACHABLE with the SIDR status, or -ETIMEDOUT); on the passive side
 * {@link #accept} answers the CONNECT_REQUEST with a SIDR_REP naming this QP, {@link #reject} with IB_SIDR_REJECT, and
 * no ESTABLISHED follows (cma.c cma_send_sidr_rep). See {@link RdmaCmUd}.
 *
 * <p>It drives its QP the way the kernel's rdma_cm does: {@link #createQp} leaves an RC QP in INIT with no remote
 * access (rdma_create_qp); the passive side moves it to INIT with the negotiated access, RTR and RTS before sending
 * the REP (cma_accept_ib), the active side does the same when the REP arrives and then sends the RTU
 * (cma_rep_recv); a REJ, a timeout, a DREQ and {@link #disconnect} move it to the error state (cma_modify_qp_err).
 * RTR takes the path, MTU, the peer's QPN, our own message's starting PSN as the receive PSN,
 * max_dest_rd_atomic = responder resources and min_rnr_timer 0 (cm.c cm_init_qp_rtr_attr); RTS takes the peer's
 * message's starting PSN as the send PSN, the CM's ACK timeout, the REQ's retry count, the RNR retry count and
 * max_rd_atomic = initiator depth (cm_init_qp_rts_attr). (In Linux a REQ's or REP's Starting PSN is the PSN its
 * sender expects to receive.)
 *
 * <p>Threading: the methods may be called from any thread; they run on the CM's thread (directly in invoker mode)
 * and throw {@link IllegalStateException} naming the problem when the identifier is in the wrong state.
 */
public final class RdmaCmId
{
    /** Where an identifier is in its life. */
    public enum State
    {
        /** Created, nothing done yet. */
        IDLE,
        /** Listening for connection requests. */
        LISTENING,
        /** A received request, waiting for {@link #accept} or {@link #reject}. */
        CONNECT_REQUEST,
        /** REQ sent, or REP sent: waiting for the other side. */
        CONNECTING,
        /** Connected. */
        ESTABLISHED,
        /** Disconnected (DREQ/DREP exchanged, or DREQ timed out); TimeWait may still run. */
        DISCONNECTED,
        /** Rejected by the peer, or by us. */
        REJECTED,
        /** The peer never answered. */
        UNREACHABLE,
        /** A local failure while connecting (a QP could not be moved). */
        ERROR,
        /** Destroyed. */
        DESTROYED
    }

    private final RdmaCm owner;
    private final int number;
    private final RdmaCmId parent;
    private final int portSpace;
    private final RdmaCmIdHandler handler;
    private volatile State state = State.IDLE;
    private volatile InetSocketAddress localAddress;
    private volatile InetSocketAddress remoteAddress;
    private volatile QueuePair qp;
    private volatile boolean timewaitExited;
    private CmConnection connection;
    private ConnParam peerParam;
    private int backlog;
    private int pendingRequests;
    private volatile int tos = -1;
    private AhAttributes udAh;
    private final RdmaCmMulticast multicast = new RdmaCmMulticast(this);

    RdmaCmId(final RdmaCm owner, final int number, final RdmaCmId parent, final int portSpace)
    {
        this.owner = owner;
        this.number = number;
        this.parent = parent;
        this.portSpace = portSpace;
        this.handler = new RdmaCmIdHandler(this, owner);
        if (null != parent)
        {
            this.tos = parent.tos;
        }
    }

    /**
     * Set the IP type of service (IPv4 TOS / IPv6 traffic class) of the connection, as librdmacm's
     * {@code rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos)}: before {@link #connect} it goes into the
     * REQ's path (Primary Traffic Class), which both sides' QPs then use; on a listening identifier it is what the
     * connections it accepts use instead of the REQ's. Unset, the REQ carries 0 and accepted connections take the
     * REQ's.
     *
     * @param typeOfService 0..255.
     * @return this.
     * @throws IllegalArgumentException outside 0..255.
     */
    public RdmaCmId tos(final int typeOfService)
    {
        if (typeOfService < 0 || typeOfService > 255)
        {
            throw new IllegalArgumentException("type of service must be 0..255, got " + typeOfService);
        }
        this.tos = typeOfService;
        return this;
    }

    /**
     * @return the type of service set by {@link #tos(int)} (or inherited from the listener), or -1 when unset.
     */
    public int tos()
    {
        return tos;
    }

    // ------------------------------------------------------------------------------------------------------------
    // librdmacm-style API
    // ------------------------------------------------------------------------------------------------------------

    /**
     * Bind to an address and listen (rdma_bind_addr + rdma_listen): REQs for the TCP service ID of the port whose
     * rdma_cm header names this address (or any, for 0.0.0.0 / ::) become CONNECT_REQUEST events.
     *
     * @param address this device's IPv4 address or its link-local IPv6 address, or a wildcard; a port 1..65535.
     * @param backlog most connection requests waiting for accept/reject; more are dropped unanswered (the sender
     *                retries), as the kernel's ucma does.
     * @return this.
     * @throws IllegalArgumentException for an address that is not this device's, or a bad port or backlog.
     * @throws IllegalStateException    when the address and port are in use, or this identifier is not IDLE.
     */
    public RdmaCmId listen(final InetSocketAddress address, final int backlog)
    {
        if (null == address)
        {
            throw new NullPointerException("address must not be null");
        }
        RdmaCmAddresses.checkPort("listen", address);
        if (backlog < 1)
        {
            throw new IllegalArgumentException("backlog must be at least 1, got " + backlog);
        }
        owner.call(() ->
        {
            RdmaCmIdRules.requireState(this, "listen", State.IDLE);
            owner.bindListener(this, address);
            this.backlog = backlog;
            this.localAddress = address;
            state = State.LISTENING;
            return null;
        });
        return this;
    }

    /**
     * Create the connection's RC QP and move it to INIT (rdma_create_qp): pkey index 0, port 1, no remote access
     * until the connection negotiates it.
     *
     * @param pd   the protection domain (of this RdmaCm's device).
     * @param init the QP's queues and CQs; its type must be RC (or unset).
     * @return the QP.
     * @throws IllegalStateException when the identifier already has a QP or is a listener.
     */
    public QueuePair createQp(final ProtectionDomain pd, final QpInitAttributes init)
    {
        final QpType type = RdmaCmQp.checkCreate(this, pd, init);
        return owner.call(() ->
        {
            RdmaCmIdRules.requireNoQp(this, "create a QP on");
            qp = RdmaCmQp.create(pd, init, type);
            return qp;
        });
    }

    /**
     * Use a QP created elsewhere for this connection (rping -q, perftest: ibv_create_qp, then the CM drives it).
     * A QP in RESET is brought up as {@link #createQp} does (RC to INIT; UD, on an RDMA_PS_UDP identifier, to RTS
     * with RDMA_UDP_QKEY); an RC QP already in INIT is taken as it is.
     *
     * @param existing a QP of this RdmaCm's device of the identifier's type (RC, or UD for RDMA_PS_UDP), in RESET
     *                 (or INIT for RC).
     * @return this.
     * @throws IllegalArgumentException for another device, QP type or state.
     * @throws IllegalStateException    when the identifier already has a QP or is a listener.
     */
    public RdmaCmId attachQp(final QueuePair existing)
    {
        RdmaCmQp.checkAttach(this, existing);
        owner.call(() ->
        {
            RdmaCmIdRules.requireNoQp(this, "attach a QP to");
            RdmaCmQp.attach(existing);
            qp = existing;
            return null;
        });
        return this;
    }

    /**
     * Connect to a listener (rdma_resolve_addr, rdma_resolve_route and rdma_connect): send a REQ with rdma_cm's
     * header and this private data. The outcome comes as an event: ESTABLISHED, REJECTED, UNREACHABLE or
     * CONNECT_ERROR.
     *
     * @param destination the peer's IPv4 address (or link-local IPv6 address) and port.
     * @param param       depths, retry counts and at most 56 bytes of private data.
     * @throws IllegalStateException    without a QP ({@link #createQp}) or when not IDLE.
     * @throws IllegalArgumentException for an address this device cannot reach or too much private data.
     */
    public void connect(final InetSocketAddress destination, final ConnParam param)
    {
        if (null == destination || null == param)
        {
            throw new NullPointerException("destination and param must not be null");
        }
        RdmaCmAddresses.checkPort("destination", destination);
        ConnParam.checkConnect(param, isUd());
        owner.call(() ->
        {
            RdmaCmIdRules.requireState(this, "connect", State.IDLE);
            RdmaCmIdRules.requireQp(this, "connect");
            connection = owner.connect(this, destination, param, handler);
            state = State.CONNECTING;
            return null;
        });
    }

    /**
     * Accept a connection request (rdma_accept): move the QP to RTR and RTS, then send the REP. ESTABLISHED follows
     * when the RTU arrives.
     *
     * @param param depths (capped by what the peer asked), RNR retry count for the peer and at most 196 bytes of
     *              private data; null accepts with the depths the peer asked (rdma_accept with NULL).
     * @throws IllegalStateException without a QP or when this is not a pending request; when a QP transition
     *                               fails (the request is then rejected, reason 28).
     */
    public void accept(final ConnParam param)
    {
        ConnParam.checkAccept(null == param ? null : param.privateData(), isUd(), "accept",
            ConnParam.MAX_ACCEPT_PRIVATE_DATA);
        owner.call(() ->
        {
            RdmaCmIdRules.requireState(this, "accept", State.CONNECT_REQUEST);
            RdmaCmIdRules.requireQp(this, "accept");
            owner.accept(this, connection, param);
            // A UD service is done once its SIDR_REP is out: no RTU, no ESTABLISHED event (cma.c cma_accept).
            state = isUd() ? State.ESTABLISHED : State.CONNECTING;
            releasePending();
            return null;
        });
    }

    /**
     * Reject a connection request (rdma_reject): a REJ with reason 28 (consumer defined) and this private data.
     *
     * @param privateData at most 148 bytes (or null).
     * @throws IllegalStateException when this is not a pending request.
     */
    public void reject(final byte[] privateData)
    {
        ConnParam.checkAccept(privateData, isUd(), "reject", ConnParam.MAX_REJECT_PRIVATE_DATA);
        owner.call(() ->
        {
            RdmaCmIdRules.requireState(this, "reject", State.CONNECT_REQUEST);
            owner.reject(connection, privateData);
            state = State.REJECTED;
            releasePending();
            return null;
        });
    }

    /**
     * Disconnect (rdma_disconnect): the QP goes to the error state (its posted work completes flushed) and a DREQ
     * goes out; DISCONNECTED follows when the DREP arrives (or the DREQ times out). Nothing happens when the
     * connection is already disconnecting.
     *
     * @throws IllegalStateException when the identifier was never connected.
     */
    public void disconnect()
    {
        owner.call(() ->
        {
            if (State.DISCONNECTED == state)
            {
                return null;
            }
            if (null == connection || (State.ESTABLISHED != state && State.CONNECTING != state))
            {
                throw new IllegalStateException("identifier " + number + " cannot disconnect in state " + state +
                    " (not connected)");
            }
            moveQpToError();
            if (isUd())
            {
                // A SIDR exchange leaves no CM state to tear down: the QP's error state is all (cma.c sends no DREQ).
                state = State.DISCONNECTED;
                return null;
            }
            owner.disconnect(connection);
            return null;
        });
    }

    /**
     * Join a multicast group (rdma_join_multicast_ex) in the UDP port space, as {@link RdmaCmMulticast} says: no SA
     * on RoCE; the QP is attached unless {@code sendOnly}; a MULTICAST_JOIN event gives the group's address vector.
     *
     * @param group    an IPv4 (224.0.0.0/4) or IPv6 (ff00::/8) multicast address.
     * @param source   the local address to send from (rdma_bind_addr), or null for the device's choice.
     * @param sendOnly join as a send-only full member (RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER): no attach.
     * @throws IllegalArgumentException for a unicast group or a source the device does not have.
     * @throws IllegalStateException    outside the UDP port space, or for a group already joined.
     */
    public void joinMulticast(final InetAddress group, final InetAddress source, final boolean sendOnly)
    {
        RdmaCmMulticast.mgid(group);
        if (!isUd())
        {
            throw new IllegalStateException("rdma_join_multicast needs an RDMA_PS_UDP identifier, this one is " +
                portSpaceName());
        }
        owner.call(() ->
        {
            owner.publish(multicast.join(group, source, sendOnly));
            return null;
        });
    }

    /**
     * Leave a group joined with {@link #joinMulticast} (rdma_leave_multicast): the QP is detached.
     *
     * @param group the group's address.
     * @throws IllegalArgumentException when the group was not joined here.
     */
    public void leaveMulticast(final InetAddress group)
    {
        owner.call(() ->
        {
            multicast.leave(group);
            return null;
        });
    }

    /**
     * Destroy the identifier (rdma_destroy_id): a listener stops listening (its pending requests are rejected); a
     * connection tells the peer as the kernel does (see {@link org.roce4j.cm.ib.IbCm#destroy}); its QP goes to the
     * error state (destroy the QP yourself). No more events for it. Idempotent.
     */
    public void destroy()
    {
        owner.call(() ->
        {
            if (State.DESTROYED == state)
            {
                return null;
            }
            multicast.leaveAll();
            if (State.LISTENING == state)
            {
                owner.unbindListener(this);
            }
            if (null != connection)
            {
                moveQpToError();
                owner.destroyConnection(connection);
            }
            if (State.CONNECT_REQUEST == state)
            {
                releasePending();
            }
            state = State.DESTROYED;
            owner.forget(this);
            return null;
        });
    }

    // ------------------------------------------------------------------------------------------------------------
    // Observation
    // ------------------------------------------------------------------------------------------------------------

    /**
     * @return the state.
     */
    public State state()
    {
        return state;
    }

    /**
     * @return the QP, or null before {@link #createQp}.
     */
    public QueuePair qp()
    {
        return qp;
    }

    /**
     * @return our address and port (a listener's bound address; a connection's source or listening address).
     */
    public InetSocketAddress localAddress()
    {
        return localAddress;
    }

    /**
     * @return the peer's address and port (from the rdma_cm header on the passive side), or null.
     */
    public InetSocketAddress remoteAddress()
    {
        return remoteAddress;
    }

    /**
     * @return the peer's parameters from its REQ (passive) or REP (active), as this side should use them; or null.
     */
    public ConnParam peerParam()
    {
        return peerParam;
    }

    /**
     * @return the listener a passive connection came from, or null.
     */
    public RdmaCmId listener()
    {
        return parent;
    }

    /**
     * @return the port space: {@code RdmaCmServiceId.PS_TCP} (RC) or {@code PS_UDP} (UD).
     */
    public int portSpace()
    {
        return portSpace;
    }

    /**
     * @return true in the UDP port space.
     */
    public boolean isUd()
    {
        return RdmaCmServiceId.PS_UDP == portSpace;
    }

    String portSpaceName()
    {
        return isUd() ? "RDMA_PS_UDP" : "RDMA_PS_TCP";
    }

    /**
     * @return the RdmaCm it belongs to.
     */
    public RdmaCm cm()
    {
        return owner;
    }

    /**
     * @return true once the connection left TimeWait.
     */
    public boolean timewaitExited()
    {
        return timewaitExited;
    }

    /**
     * @return the peer's QP number, or 0 before it is known.
     */
    public int remoteQpn()
    {
        final CmConnection c = connection;
        return null == c ? 0 : c.remoteQpn();
    }

    /**
     * @return the CM's view of the connection (CM state, comm IDs, PSNs...), e.g. for diagnostics; null for a
     *     listener.
     */
    public String describeConnection()
    {
        final CmConnection c = connection;
        return null == c ? null : c.toString() + " psn 0x" + Integer.toHexString(c.localPsn()) + " -> 0x" +
            Integer.toHexString(c.remotePsn());
    }

    /**
     * @return the CM state of the connection, or null for a listener or an idle identifier.
     */
    public CmState cmState()
    {
        final CmConnection c = connection;
        return null == c ? null : c.state();
    }

    /**
     * @return e.g. {@code rdma_cm_id 3 ESTABLISHED 10.77.0.1:40000 -> 10.77.0.2:7174}.
     */
    public String toString()
    {
        return "rdma_cm_id " + number + " " + state + " " + RdmaCmAddresses.format(localAddress) + " -> " +
            RdmaCmAddresses.format(remoteAddress);
    }

    // Internals (CM thread)

    int number()
    {
        return number;
    }

    CmConnection connection()
    {
        return connection;
    }

    boolean backlogFull()
    {
        return pendingRequests >= backlog;
    }

    void addPending()
    {
        pendingRequests++;
    }

    private void releasePending()
    {
        if (null != parent && parent.pendingRequests > 0)
        {
            parent.pendingRequests--;
        }
    }

    void asRequest(final CmConnection c, final InetSocketAddress local, final InetSocketAddress remote,
        final ConnParam peer)
    {
        this.connection = c;
        this.localAddress = local;
        this.remoteAddress = remote;
        this.peerParam = peer;
        this.state = State.CONNECT_REQUEST;
        c.handler(handler).context(this);
    }

    void addresses(final InetSocketAddress local, final InetSocketAddress remote)
    {
        this.localAddress = local;
        this.remoteAddress = remote;
    }

    void udAddress(final AhAttributes ah)
    {
        this.udAh = ah;
    }

    CmHandler handler()
    {
        return handler;
    }

    void enter(final State next)
    {
        state = next;
    }

    void peerParam(final ConnParam param)
    {
        peerParam = param;
    }

    void timewaitExit()
    {
        timewaitExited = true;
    }

    AhAttributes udAh()
    {
        return udAh;
    }

    /**
     * INIT (access for the negotiated responder resources), RTR and RTS with the connection's values; an accepted
     * connection takes its listener's type of service, when set, instead of the REQ's.
     */
    void bringUp(final CmConnection c, final int minRnrTimer)
    {
        RdmaCmQp.bringUp(qp, c, minRnrTimer, null != parent && tos >= 0 ? tos : -1, owner.device());
    }

    void moveQpToError()
    {
        RdmaCmQp.moveToError(qp, owner);
    }
}
