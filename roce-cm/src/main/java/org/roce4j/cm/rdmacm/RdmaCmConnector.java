package org.roce4j.cm.rdmacm;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.HashSet;
import java.util.Set;

import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.cm.ib.CmConnection;
import org.roce4j.cm.ib.CmHandler;
import org.roce4j.cm.ib.CmListener;
import org.roce4j.cm.ib.CmReplyParams;
import org.roce4j.cm.ib.CmRequestParams;
import org.roce4j.cm.ib.CmState;
import org.roce4j.cm.ib.IbCm;
import org.roce4j.cm.ib.MadAddress;
import org.roce4j.ib.AhAttributes;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.verbs.DeviceAttributes;
import org.roce4j.verbs.RdmaDevice;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.header.BthHeader;
import org.roce4j.wire.mad.CmReqMessage;
import org.roce4j.wire.mad.CmRejectReason;
import org.roce4j.wire.mad.CmSidrRepMessage;
import org.roce4j.wire.mad.CmaHeader;
import org.roce4j.wire.mad.RdmaCmServiceId;

/**
 * {@link RdmaCm}'s translation between rdma_cm and the {@link IbCm} (cma.c cma_ib_req_handler, cma_connect_ib,
 * cma_accept_ib, and for UD cma_resolve_ib_udp and cma_send_sidr_rep): turns a REQ or SIDR_REQ and its rdma_cm
 * header into a CONNECT_REQUEST event or a refusal, builds the REQ or SIDR_REQ of an active id (source address and
 * port, the rdma_cm header, the RoCE flow label) and the REP or SIDR_REP of an accepted one.
 * CM thread only.
 */
final class RdmaCmConnector
{
    /** Linux's default ip_local_port_range, where rdma_cm picks an active side's port. */
    private static final int EPHEMERAL_PORTS = 60999 - 32768 + 1;

    private final RdmaCm rdmaCm;
    private final IbCm cm;
    private final RdmaDevice device;
    private final RdmaCmOptions options;
    private final LinkAddress linkAddress;
    private final RdmaCmAddresses addresses;
    private final Set<Integer> activePorts = new HashSet<>();

    /**
     * @param rdmaCm    creates ids, publishes events and finds listeners.
     * @param cm        the IB CM.
     * @param device    the device.
     * @param options   IDs, PSNs, ports and the minimum RNR timer.
     * @param addresses the device's addresses.
     */
    RdmaCmConnector(final RdmaCm rdmaCm, final IbCm cm, final RdmaDevice device, final RdmaCmOptions options,
        final RdmaCmAddresses addresses)
    {
        this.rdmaCm = rdmaCm;
        this.cm = cm;
        this.device = device;
        this.options = options;
        this.linkAddress = device.link().address();
        this.addresses = addresses;
    }

    /** A REQ's or SIDR_REQ's rdma_cm header, read (cma.c cma_save_ip_info). */
    private record Request(InetAddress source, InetAddress destination, int sourcePort, int port, byte[] user)
    {
    }

    /** Where a connect goes: both GIDs and our address (cma.c's route resolution on RoCE). */
    private record Route(long localHigh, long localLow, long remoteHigh, long remoteLow, InetAddress localIp,
        boolean v4)
    {
    }

    /**
     * The IB CM's listener for every TCP port someone listens on (cma.c cma_ib_req_handler).
     */
    int onRequest(final CmConnection c)
    {
        if (CmState.SIDR_REQ_RCVD == c.state())
        {
            // cma_ib_check_req_qp_type: a SIDR_REQ for a TCP-space listener: rdma_cm refuses, the CM says REJECT.
            return CmSidrRepMessage.STATUS_REJECT;
        }
        if (CmReqMessage.TRANSPORT_RC != c.transportType())
        {
            // cma_ib_check_req_qp_type: the listener is RC; rdma_cm refuses, the CM rejects "consumer defined".
            return CmRejectReason.CONSUMER_DEFINED.code();
        }
        final Request r = parse(c);
        if (null == r)
        {
            // cma_save_ip_info: -EINVAL / -EAFNOSUPPORT, so the kernel's CM rejects with CONSUMER_DEFINED.
            return CmRejectReason.CONSUMER_DEFINED.code();
        }
        final RdmaCmId listener = rdmaCm.findListener(RdmaCmServiceId.PS_TCP, r.port(), r.destination());
        if (null == listener)
        {
            // cma_match_private_data: no listener on this port takes that destination address.
            return CmRejectReason.CONSUMER_DEFINED.code();
        }
        if (c.pathMtu() < 1 || c.pathMtu() > device.activeMtu().verbsValue())
        {
            return CmRejectReason.INVALID_MTU.code();
        }
        if (listener.backlogFull())
        {
            // ucma: no backlog left: -ENOMEM, and cm.c drops the REQ without a REJ so the sender retries.
            return CmListener.DROP;
        }
        // cm.c cm_format_req_event: the peer's depths seen from this side (its initiator depth is our responder
        // resources), capped by the device as librdmacm does for rdma_accept(NULL).
        final ConnParam peer = new ConnParam()
            .responderResources(Math.min(c.remoteInitiatorDepth(), DeviceAttributes.MAX_QP_RD_ATOM))
            .initiatorDepth(Math.min(c.remoteResponderResources(), DeviceAttributes.MAX_QP_INIT_RD_ATOM))
            .retryCount(c.retryCount())
            .rnrRetryCount(c.rnrRetryCount());
        publishRequest(c, listener, r, peer);
        return CmListener.PENDING;
    }

    /**
     * The IB CM's listener for every UDP port someone listens on (cma.c cma_ib_req_handler for
     * IB_CM_SIDR_REQ_RECEIVED): a SIDR_REQ becomes a CONNECT_REQUEST; a bad rdma_cm header or an address nobody
     * listens on gets IB_SIDR_REJECT (cm_destroy_id after the handler failed).
     */
    int onSidrRequest(final CmConnection c)
    {
        if (CmState.SIDR_REQ_RCVD != c.state())
        {
            // A REQ for a UDP-space listener (cma_ib_check_req_qp_type): REJ CONSUMER_DEFINED.
            return CmRejectReason.CONSUMER_DEFINED.code();
        }
        final Request r = parse(c);
        final RdmaCmId listener = null == r ? null :
            rdmaCm.findListener(RdmaCmServiceId.PS_UDP, r.port(), r.destination());
        if (null == listener)
        {
            return CmSidrRepMessage.STATUS_REJECT;
        }
        if (listener.backlogFull())
        {
            return CmListener.DROP;
        }
        publishRequest(c, listener, r, null);
        return CmListener.PENDING;
    }

    private static Request parse(final CmConnection c)
    {
        final byte[] data = c.privateData();
        final CmaHeader header = new CmaHeader().wrap(new UnsafeBuffer(data), 0);
        final int ipVersion = header.ipVersion();
        if (CmaHeader.CMA_VERSION != header.version() || (4 != ipVersion && 6 != ipVersion))
        {
            return null;
        }
        final InetAddress source = 4 == ipVersion ? Gid.ofIpv4(header.sourceIpv4()).toInetAddress() :
            new Gid(header.sourceHigh(), header.sourceLow()).toInetAddress();
        final InetAddress destination = 4 == ipVersion ? Gid.ofIpv4(header.destinationIpv4()).toInetAddress() :
            new Gid(header.destinationHigh(), header.destinationLow()).toInetAddress();
        final byte[] user = new byte[data.length - CmaHeader.LENGTH];
        System.arraycopy(data, CmaHeader.LENGTH, user, 0, user.length);
        return new Request(source, destination, header.port(), RdmaCmServiceId.port(c.serviceId()), user);
    }

    private void publishRequest(final CmConnection c, final RdmaCmId listener, final Request r, final ConnParam peer)
    {
        final RdmaCmId child = rdmaCm.newId(listener, listener.portSpace());
        listener.addPending();
        child.asRequest(c, new InetSocketAddress(r.destination(), r.port()),
            new InetSocketAddress(r.source(), r.sourcePort()), peer);
        rdmaCm.publish(new RdmaCmEvent(RdmaCmEventType.CONNECT_REQUEST, child, listener, 0, r.user(), peer,
            (null == peer ? "UD service request from " : "connection request from ") +
            r.source().getHostAddress() + ":" + r.sourcePort() + " to port " + r.port()));
    }

    /**
     * Connect an active id: a REQ (TCP port space) or a SIDR_REQ (UDP), with rdma_cm's header before the user's
     * private data.
     */
    CmConnection connect(final RdmaCmId id, final InetSocketAddress destination, final ConnParam param,
        final CmHandler handler)
    {
        final InetAddress ip = destination.getAddress();
        if (null == ip)
        {
            throw new IllegalArgumentException("unresolved destination " + destination);
        }
        final Route route = route(ip);
        final int sourcePort = allocatePort();
        final int dport = destination.getPort();
        final byte[] privateData = new byte[CmaHeader.LENGTH + param.privateData().length];
        final CmaHeader header = new CmaHeader().wrap(new UnsafeBuffer(privateData), 0);
        if (route.v4())
        {
            header.ipv4(sourcePort, linkAddress.ipv4(), RdmaCmAddresses.ipv4Of(ip));
        }
        else
        {
            header.ipv6(sourcePort, route.localHigh(), route.localLow(), route.remoteHigh(), route.remoteLow());
        }
        System.arraycopy(param.privateData(), 0, privateData, CmaHeader.LENGTH, param.privateData().length);
        id.addresses(new InetSocketAddress(route.localIp(), sourcePort), destination);
        final MadAddress peer = new MadAddress(route.remoteHigh(), route.remoteLow(), BthHeader.GSI_QPN);
        final CmConnection c;
        if (id.isUd())
        {
            // cma.c cma_resolve_ib_udp; the event's ah_attr comes from the route (ib_init_ah_attr_from_path).
            id.udAddress(new AhAttributes().dgid(route.remoteHigh(), route.remoteLow())
                .sgidIndex(device.gidIndexOf(new Gid(route.localHigh(), route.localLow())))
                .hopLimit(CmRequestParams.DEFAULT_HOP_LIMIT)
                .trafficClass(Math.max(0, id.tos()))
                .flowLabel(roceFlowLabel(sourcePort, dport))
                .portNum(1));
            c = cm.sidrRequest(RdmaCmServiceId.serviceId(RdmaCmServiceId.PS_UDP, dport), privateData, handler,
                peer);
        }
        else
        {
            final CmRequestParams request = new CmRequestParams()
                .serviceId(RdmaCmServiceId.serviceId(RdmaCmServiceId.PS_TCP, dport))
                .localQpn(id.qp().qpNum())
                .startingPsn(options.ids().nextPsn())
                .pathMtu(device.activeMtu().verbsValue())
                .responderResources(Math.min(param.responderResources(), DeviceAttributes.MAX_QP_RD_ATOM))
                .initiatorDepth(Math.min(param.initiatorDepth(), DeviceAttributes.MAX_QP_INIT_RD_ATOM))
                .retryCount(param.retryCount())
                .rnrRetryCount(param.rnrRetryCount())
                .localGid(route.localHigh(), route.localLow())
                .remoteGid(route.remoteHigh(), route.remoteLow())
                .flowLabel(roceFlowLabel(sourcePort, dport))
                .hopLimit(CmRequestParams.DEFAULT_HOP_LIMIT)
                .trafficClass(Math.max(0, id.tos()))
                .privateData(privateData);
            c = cm.connect(request, handler, peer);
        }
        c.context(id);
        return c;
    }

    private Route route(final InetAddress ip)
    {
        if (addresses.isOurs(ip))
        {
            throw new IllegalArgumentException("cannot connect to " + ip.getHostAddress() + ": it is this device's " +
                "own address (loopback through one device is not supported)");
        }
        if (ip instanceof Inet4Address)
        {
            return new Route(0, linkAddress.ipv4MappedLow(), 0, Gid.ipv4MappedLow(RdmaCmAddresses.ipv4Of(ip)),
                Gid.ofIpv4(linkAddress.ipv4()).toInetAddress(), true);
        }
        final Gid remote = Gid.of(ip);
        // The kernel's source address selection: a link-local peer from our link-local GID, any other from our
        // first global IPv6 address (RFC 6724 rule 2, matching scope).
        final Gid local = Gid.isLinkLocal(remote.high()) ? linkAddress.linkLocal() : addresses.firstGlobalIpv6();
        if (null == local)
        {
            throw new IllegalArgumentException("cannot reach " + ip.getHostAddress() + ": this device has no " +
                "global IPv6 address (" + addresses.describe() + "), so it reaches link-local fe80:: peers only");
        }
        return new Route(local.high(), local.low(), remote.high(), remote.low(), local.toInetAddress(), false);
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
        if (id.isUd())
        {
            // cma.c cma_accept for UD: cma_send_sidr_rep(IB_SIDR_SUCCESS) with the id's QP and Q_Key.
            cm.sidrReply(c, CmSidrRepMessage.STATUS_SUCCESS, id.qp().qpNum(), UdParam.RDMA_UDP_QKEY,
                null == param ? null : param.privateData());
            return;
        }
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

    /**
     * Give an active side's source port back when its connection goes.
     *
     * @param c the connection.
     */
    void releasePort(final CmConnection c)
    {
        final Object context = c.context();
        if (context instanceof RdmaCmId)
        {
            activePorts.remove(((RdmaCmId)context).localAddress().getPort());
        }
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
}
