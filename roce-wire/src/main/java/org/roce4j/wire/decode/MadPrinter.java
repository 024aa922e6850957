package org.roce4j.wire.decode;

import org.agrona.MutableDirectBuffer;
import org.roce4j.wire.mad.CmAttribute;
import org.roce4j.wire.mad.CmDrepMessage;
import org.roce4j.wire.mad.CmDreqMessage;
import org.roce4j.wire.mad.CmMessage;
import org.roce4j.wire.mad.CmMraMessage;
import org.roce4j.wire.mad.CmPath;
import org.roce4j.wire.mad.CmRejMessage;
import org.roce4j.wire.mad.CmRejectReason;
import org.roce4j.wire.mad.CmRepMessage;
import org.roce4j.wire.mad.CmReqMessage;
import org.roce4j.wire.mad.CmRtuMessage;
import org.roce4j.wire.mad.CmSidrRepMessage;
import org.roce4j.wire.mad.CmSidrReqMessage;
import org.roce4j.wire.mad.CmaHeader;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.mad.MadHeader;
import org.roce4j.wire.mad.MadMethod;
import org.roce4j.wire.mad.ManagementClass;
import org.roce4j.wire.mad.RdmaCmServiceId;

/**
 * Prints the MAD inside a UD packet to QP1: the common header, and for the CM class the message with every field
 * and the RDMA CM header of a REQ.
 */
final class MadPrinter
{
    private final MadHeader mad = new MadHeader();
    private final CmReqMessage req = new CmReqMessage();
    private final CmMraMessage mra = new CmMraMessage();
    private final CmRejMessage rej = new CmRejMessage();
    private final CmRepMessage rep = new CmRepMessage();
    private final CmRtuMessage rtu = new CmRtuMessage();
    private final CmDreqMessage dreq = new CmDreqMessage();
    private final CmDrepMessage drep = new CmDrepMessage();
    private final CmSidrReqMessage sidrReq = new CmSidrReqMessage();
    private final CmSidrRepMessage sidrRep = new CmSidrRepMessage();
    private final CmaHeader cma = new CmaHeader();

    /**
     * Verbose form.
     *
     * @param out    to print to.
     * @param buffer holding the MAD.
     * @param offset of the MAD.
     * @param length bytes of payload available.
     */
    void print(final Text out, final MutableDirectBuffer buffer, final int offset, final int length)
    {
        if (length < MadHeader.LENGTH)
        {
            out.section("MAD: truncated (" + length + " of " + MadHeader.MAD_LENGTH + " bytes)");
            return;
        }
        mad.wrap(buffer, offset);
        out.section("MAD Header (Management Datagram)");
        out.field(1, "Base Version", mad.baseVersion());
        out.field("Management Class", ManagementClass.describe(mad.mgmtClass()) + " (" + Text.hex(mad.mgmtClass(), 2) +
            ")");
        out.field(1, "Class Version", mad.classVersion());
        out.field("Method", MadMethod.describe(mad.method()) + " (" + Text.hex(mad.method(), 2) + ")");
        out.field("Status", Text.hex(mad.status(), 4) + " (" + MadHeader.describeStatus(mad.status()) + ")");
        out.field("Class Specific", Text.hex(mad.classSpecific(), 4));
        out.field("Transaction ID", Text.hex(mad.transactionId(), 16));
        final CmAttribute attribute = cmAttribute();
        out.field("Attribute ID", (null == attribute ? "unknown" : attribute.displayName()) + " (" +
            Text.hex(mad.attributeId(), 4) + ")");
        out.field("Reserved", Text.hex(mad.reserved(), 4));
        out.field("Attribute Modifier", Text.hex(mad.attributeModifier() & 0xFFFF_FFFFL, 8));
        if (null == attribute)
        {
            if (length > MadHeader.LENGTH)
            {
                out.field("Data", (length - MadHeader.LENGTH) + " bytes");
            }
            return;
        }
        if (length < MadHeader.MAD_LENGTH)
        {
            out.section("CM " + attribute.displayName() + ": truncated (" + length + " of " + MadHeader.MAD_LENGTH +
                " bytes)");
            return;
        }
        printCm(out, attribute, buffer, offset);
    }

    /**
     * One-line form: attribute name and key fields, e.g. "CM ConnectRequest lcid=0x... sid=...".
     *
     * @param out    to append to.
     * @param buffer holding the MAD.
     * @param offset of the MAD.
     * @param length bytes of payload available.
     */
    void summarize(final StringBuilder out, final MutableDirectBuffer buffer, final int offset, final int length)
    {
        if (length < MadHeader.LENGTH)
        {
            out.append(" MAD(truncated)");
            return;
        }
        mad.wrap(buffer, offset);
        final CmAttribute attribute = cmAttribute();
        if (null == attribute)
        {
            out.append(" MAD ").append(ManagementClass.describe(mad.mgmtClass())).append(' ')
                .append(MadMethod.describe(mad.method())).append(" attr=").append(Text.hex(mad.attributeId(), 4));
            return;
        }
        out.append(" CM ").append(attribute.displayName()).append(" tid=").append(Text.hex(mad.transactionId(), 16));
        if (length < MadHeader.MAD_LENGTH)
        {
            out.append(" (truncated)");
            return;
        }
        switch (attribute)
        {
            case CONNECT_REQUEST:
                req.wrapMad(buffer, offset);
                out.append(" lcid=").append(Text.hex(req.localCommId(), 8))
                    .append(" sid=").append(Text.hex(req.serviceId(), 16));
                final String service = RdmaCmServiceId.describe(req.serviceId());
                if (null != service)
                {
                    out.append(" (").append(service).append(')');
                }
                out.append(" qpn=").append(Text.hex(req.localQpn(), 6))
                    .append(" start_psn=").append(Text.hex(req.startingPsn(), 6));
                break;
            case CONNECT_REPLY:
                rep.wrapMad(buffer, offset);
                commIds(out, rep.localCommId(), rep.remoteCommId());
                out.append(" qpn=").append(Text.hex(rep.localQpn(), 6))
                    .append(" start_psn=").append(Text.hex(rep.startingPsn(), 6));
                break;
            case CONNECT_REJECT:
                rej.wrapMad(buffer, offset);
                commIds(out, rej.localCommId(), rej.remoteCommId());
                out.append(" reason=").append(rej.reason()).append(" (").append(reasonName(rej.reason())).append(')');
                break;
            case MSG_RCPT_ACK:
                mra.wrapMad(buffer, offset);
                commIds(out, mra.localCommId(), mra.remoteCommId());
                out.append(" mraed=").append(mraedName(mra.messageMraed()))
                    .append(" service_timeout=").append(mra.serviceTimeout());
                break;
            case READY_TO_USE:
                rtu.wrapMad(buffer, offset);
                commIds(out, rtu.localCommId(), rtu.remoteCommId());
                break;
            case DISCONNECT_REQUEST:
                dreq.wrapMad(buffer, offset);
                commIds(out, dreq.localCommId(), dreq.remoteCommId());
                out.append(" remote_qpn=").append(Text.hex(dreq.remoteQpn(), 6));
                break;
            case DISCONNECT_REPLY:
                drep.wrapMad(buffer, offset);
                commIds(out, drep.localCommId(), drep.remoteCommId());
                break;
            case SERVICE_ID_RES_REQ:
                sidrReq.wrapMad(buffer, offset);
                out.append(" rid=").append(Text.hex(sidrReq.requestId(), 8))
                    .append(" sid=").append(Text.hex(sidrReq.serviceId(), 16));
                final String udService = RdmaCmServiceId.describe(sidrReq.serviceId());
                if (null != udService)
                {
                    out.append(" (").append(udService).append(')');
                }
                break;
            case SERVICE_ID_RES_REQ_RESP:
                sidrRep.wrapMad(buffer, offset);
                out.append(" rid=").append(Text.hex(sidrRep.requestId(), 8))
                    .append(" status=").append(sidrRep.status())
                    .append(" (").append(CmSidrRepMessage.describeStatus(sidrRep.status())).append(')')
                    .append(" qpn=").append(Text.hex(sidrRep.qpn(), 6))
                    .append(" qkey=").append(Text.hex(sidrRep.qkey() & 0xFFFF_FFFFL, 8));
                break;
            default:
                break;
        }
    }

    private CmAttribute cmAttribute()
    {
        return ManagementClass.CM.code() == mad.mgmtClass() ? CmAttribute.of(mad.attributeId()) : null;
    }

    private static void commIds(final StringBuilder out, final int local, final int remote)
    {
        out.append(" lcid=").append(Text.hex(local, 8)).append(" rcid=").append(Text.hex(remote, 8));
    }

    private void printCm(
        final Text out, final CmAttribute attribute, final MutableDirectBuffer buffer, final int offset)
    {
        out.section("CM " + attribute.displayName() + " (" + attribute.shortName() + ")");
        switch (attribute)
        {
            case CONNECT_REQUEST:
                printReq(out, buffer, offset);
                break;
            case MSG_RCPT_ACK:
                mra.wrapMad(buffer, offset);
                out.field("Local Communication ID", Text.hex(mra.localCommId(), 8));
                out.field("Remote Communication ID", Text.hex(mra.remoteCommId(), 8));
                out.field("Message MRAed", mra.messageMraed() + " (" + mraedName(mra.messageMraed()) + ")");
                out.field("Service Timeout", mra.serviceTimeout() + " (" +
                    Text.duration(CmReqMessage.cmTimeoutNs(mra.serviceTimeout())) + ")");
                privateData(out, mra);
                break;
            case CONNECT_REJECT:
                rej.wrapMad(buffer, offset);
                out.field("Local Communication ID", Text.hex(rej.localCommId(), 8));
                out.field("Remote Communication ID", Text.hex(rej.remoteCommId(), 8));
                out.field("Message Rejected", rej.messageRejected() + " (" + rejectedName(rej.messageRejected()) + ")");
                out.field(1, "Rejected Info Length", rej.ariLength());
                out.field("Reason", rej.reason() + " (" + reasonName(rej.reason()) + ")");
                final int ariLength = Math.min(rej.ariLength(), CmRejMessage.ARI_CAPACITY);
                out.field("Additional Rejection Information", 0 == ariLength ? "none" :
                    Text.hexBytes(buffer, rej.ariBufferOffset(), ariLength, CmRejMessage.ARI_CAPACITY));
                privateData(out, rej);
                break;
            case CONNECT_REPLY:
                rep.wrapMad(buffer, offset);
                out.field("Local Communication ID", Text.hex(rep.localCommId(), 8));
                out.field("Remote Communication ID", Text.hex(rep.remoteCommId(), 8));
                out.field("Local Q_Key", Text.hex(rep.localQkey() & 0xFFFF_FFFFL, 8));
                out.field("Local QPN", Text.hex(rep.localQpn(), 6));
                out.field("Local EECN", Text.hex(rep.localEecn(), 6));
                out.field("Vendor ID", Text.hex(rep.vendorId(), 6));
                out.field("Starting PSN", Text.hex(rep.startingPsn(), 6) + " (" + rep.startingPsn() + ")");
                out.field(1, "Responder Resources", rep.responderResources());
                out.field(1, "Initiator Depth", rep.initiatorDepth());
                out.field("Target ACK Delay", rep.targetAckDelay() + " (" +
                    Text.duration(CmReqMessage.cmTimeoutNs(rep.targetAckDelay())) + ")");
                out.field(1, "Failover Accepted", rep.failoverAccepted());
                out.flag(1, "End-to-End Flow Control", rep.endToEndFlowControl());
                out.field(1, "RNR Retry Count", rep.rnrRetryCount());
                out.flag(1, "SRQ", rep.srq());
                out.field("Local CA GUID", Text.hex(rep.localCaGuid(), 16));
                privateData(out, rep);
                break;
            case READY_TO_USE:
                rtu.wrapMad(buffer, offset);
                out.field("Local Communication ID", Text.hex(rtu.localCommId(), 8));
                out.field("Remote Communication ID", Text.hex(rtu.remoteCommId(), 8));
                privateData(out, rtu);
                break;
            case DISCONNECT_REQUEST:
                dreq.wrapMad(buffer, offset);
                out.field("Local Communication ID", Text.hex(dreq.localCommId(), 8));
                out.field("Remote Communication ID", Text.hex(dreq.remoteCommId(), 8));
                out.field("Remote QPN/EECN", Text.hex(dreq.remoteQpn(), 6));
                privateData(out, dreq);
                break;
            case DISCONNECT_REPLY:
                drep.wrapMad(buffer, offset);
                out.field("Local Communication ID", Text.hex(drep.localCommId(), 8));
                out.field("Remote Communication ID", Text.hex(drep.remoteCommId(), 8));
                privateData(out, drep);
                break;
            case SERVICE_ID_RES_REQ:
                sidrReq.wrapMad(buffer, offset);
                out.field("Request ID", Text.hex(sidrReq.requestId(), 8));
                out.field("Partition Key", Text.hex(sidrReq.pkey(), 4));
                final String udService = RdmaCmServiceId.describe(sidrReq.serviceId());
                out.field("Service ID", Text.hex(sidrReq.serviceId(), 16) +
                    (null == udService ? "" : " (" + udService + ")"));
                privateData(out, sidrReq);
                if (RdmaCmServiceId.isRdmaCmIp(sidrReq.serviceId()) &&
                    RdmaCmServiceId.PS_IB != RdmaCmServiceId.portSpace(sidrReq.serviceId()))
                {
                    printCmaHeader(out, buffer, sidrReq.privateDataBufferOffset());
                }
                break;
            case SERVICE_ID_RES_REQ_RESP:
                sidrRep.wrapMad(buffer, offset);
                out.field("Request ID", Text.hex(sidrRep.requestId(), 8));
                out.field("Status", sidrRep.status() + " (" + CmSidrRepMessage.describeStatus(sidrRep.status()) + ")");
                out.field(1, "Additional Information Length", sidrRep.addInfoLength());
                out.field("Vendor ID", Text.hex(sidrRep.vendorId(), 6));
                out.field("QPN", Text.hex(sidrRep.qpn(), 6));
                out.field("Service ID", Text.hex(sidrRep.serviceId(), 16));
                out.field("Q_Key", Text.hex(sidrRep.qkey() & 0xFFFF_FFFFL, 8));
                privateData(out, sidrRep);
                break;
            default:
                out.field("Data", MadHeader.DATA_LENGTH + " bytes (not decoded)");
                break;
        }
    }

    private void printReq(final Text out, final MutableDirectBuffer buffer, final int offset)
    {
        final CmReqMessage req = this.req.wrapMad(buffer, offset);
        out.field("Local Communication ID", Text.hex(req.localCommId(), 8));
        out.field("Vendor ID", Text.hex(req.vendorId(), 6));
        final String service = RdmaCmServiceId.describe(req.serviceId());
        out.field("Service ID", Text.hex(req.serviceId(), 16) + (null == service ? "" : " (" + service + ")"));
        out.field("Local CA GUID", Text.hex(req.localCaGuid(), 16));
        out.field("Local Q_Key", Text.hex(req.localQkey() & 0xFFFF_FFFFL, 8));
        out.field("Local QPN", Text.hex(req.localQpn(), 6));
        out.field(1, "Responder Resources", req.responderResources());
        out.field("Local EECN", Text.hex(req.localEecn(), 6));
        out.field(1, "Initiator Depth", req.initiatorDepth());
        out.field("Remote EECN", Text.hex(req.remoteEecn(), 6));
        out.field("Remote CM Response Timeout", req.remoteCmResponseTimeout() + " (" +
            Text.duration(CmReqMessage.cmTimeoutNs(req.remoteCmResponseTimeout())) + ")");
        out.field("Transport Service Type", req.transportServiceType() + " (" +
            transportName(req.transportServiceType(), req.extendedTransportType()) + ")");
        out.flag(1, "End-to-End Flow Control", req.endToEndFlowControl());
        out.field("Starting PSN", Text.hex(req.startingPsn(), 6) + " (" + req.startingPsn() + ")");
        out.field("Local CM Response Timeout", req.localCmResponseTimeout() + " (" +
            Text.duration(CmReqMessage.cmTimeoutNs(req.localCmResponseTimeout())) + ")");
        out.field(1, "Retry Count", req.retryCount());
        out.field("Partition Key", Text.hex(req.pkey(), 4));
        out.field("Path MTU", req.pathMtu() + " (" + CmReqMessage.mtuBytes(req.pathMtu()) + " bytes)");
        out.flag(1, "RDC Exists", req.rdcExists());
        out.field(1, "RNR Retry Count", req.rnrRetryCount());
        out.field(1, "Max CM Retries", req.maxCmRetries());
        out.flag(1, "SRQ", req.srq());
        out.field(1, "Extended Transport Type", req.extendedTransportType());
        printPath(out, "Primary Path", req.primaryPath());
        final CmPath alternate = req.alternatePath();
        if (Text.allZero(buffer, alternate.offset(), CmPath.LENGTH - 1))
        {
            out.field("Alternate Path", "none (all zero)");
        }
        else
        {
            printPath(out, "Alternate Path", alternate);
        }
        out.flag(1, "SAP Supported", req.sapSupported());
        privateData(out, req);
        if (RdmaCmServiceId.isRdmaCmIp(req.serviceId()) &&
            RdmaCmServiceId.PS_IB != RdmaCmServiceId.portSpace(req.serviceId()))
        {
            printCmaHeader(out, buffer, req.privateDataBufferOffset());
        }
    }

    private void printCmaHeader(final Text out, final MutableDirectBuffer buffer, final int offset)
    {
        cma.wrap(buffer, offset);
        out.section("RDMA CM Header (cma_hdr, first " + CmaHeader.LENGTH + " bytes of the private data)");
        out.field("Version", cma.version() + (CmaHeader.CMA_VERSION == cma.version() ? "" : " (unexpected)"));
        final int ipVersion = cma.ipVersion();
        out.field("IP Version", ipVersion + (4 == ipVersion || 6 == ipVersion ? "" : " (invalid)"));
        out.field(1, "Source Port", cma.port());
        if (4 == ipVersion || 6 == ipVersion)
        {
            out.field("Source Address", cma.sourceToString());
            out.field("Destination Address", cma.destinationToString());
        }
        else
        {
            out.field("Source Address", Text.hexBytes(buffer, offset + CmaHeader.SOURCE_OFFSET, 16, 16));
            out.field("Destination Address", Text.hexBytes(buffer, offset + CmaHeader.DESTINATION_OFFSET, 16, 16));
        }
        final int userLength = CmReqMessage.PRIVATE_DATA_LENGTH - CmaHeader.LENGTH;
        out.field("User Private Data", describeData(buffer, offset + CmaHeader.LENGTH, userLength));
    }

    private static void printPath(final Text out, final String title, final CmPath path)
    {
        out.section(1, title);
        out.field(2, "Local Port LID", Text.hex(path.localLid(), 4));
        out.field(2, "Remote Port LID", Text.hex(path.remoteLid(), 4));
        out.field(2, "Local Port GID", Gid.toString(path.localGidHigh(), path.localGidLow()));
        out.field(2, "Remote Port GID", Gid.toString(path.remoteGidHigh(), path.remoteGidLow()));
        out.field(2, "Flow Label", Text.hex(path.flowLabel(), 5));
        out.field(2, "Reserved (6 bits)", path.reservedAfterFlowLabel());
        out.field(2, "Packet Rate", path.packetRate());
        out.field(2, "Traffic Class", path.trafficClass());
        out.field(2, "Hop Limit", path.hopLimit());
        out.field(2, "SL", path.sl());
        out.flag(2, "Subnet Local", path.subnetLocal());
        out.field(2, "Local ACK Timeout", path.localAckTimeout() + " (" +
            Text.duration(CmReqMessage.cmTimeoutNs(path.localAckTimeout())) + ")");
    }

    private static void privateData(final Text out, final CmMessage message)
    {
        out.field("Private Data", describeData(message.buffer(), message.privateDataBufferOffset(),
            message.privateDataLength()));
    }

    private static String describeData(final MutableDirectBuffer buffer, final int offset, final int length)
    {
        if (Text.allZero(buffer, offset, length))
        {
            return length + " bytes (all zero)";
        }
        return length + " bytes: " + Text.hexBytes(buffer, offset, length, 24);
    }

    private static String transportName(final int type, final int extended)
    {
        switch (type)
        {
            case CmReqMessage.TRANSPORT_RC:
                return "RC";
            case CmReqMessage.TRANSPORT_UC:
                return "UC";
            case CmReqMessage.TRANSPORT_RD:
                return "RD";
            default:
                return 1 == extended ? "XRC" : "extended type " + extended;
        }
    }

    private static String reasonName(final int code)
    {
        final CmRejectReason reason = CmRejectReason.of(code);
        return null == reason ? "undefined" : reason.description();
    }

    private static String mraedName(final int value)
    {
        switch (value)
        {
            case CmMraMessage.MRAED_REQ:
                return "REQ";
            case CmMraMessage.MRAED_REP:
                return "REP";
            case CmMraMessage.MRAED_LAP:
                return "LAP";
            default:
                return "reserved";
        }
    }

    private static String rejectedName(final int value)
    {
        switch (value)
        {
            case CmRejMessage.REJECTED_REQ:
                return "REQ";
            case CmRejMessage.REJECTED_REP:
                return "REP";
            case CmRejMessage.REJECTED_OTHER:
                return "no message";
            default:
                return "reserved";
        }
    }
}
