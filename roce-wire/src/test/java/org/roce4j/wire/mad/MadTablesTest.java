package org.roce4j.wire.mad;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.roce4j.wire.addr.Gid;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The name tables of the MAD package, checked whole against their sources (ib_mad.h, cm_msgs.h, ib_cm.h, Wireshark's
 * CM attribute names).
 */
class MadTablesTest
{
    @Test
    void cmAttributesAreExactlyTheCmClassTable()
    {
        final Map<Integer, String> expected = new LinkedHashMap<>();
        expected.put(0x0001, "ClassPortInfo");
        expected.put(0x0010, "ConnectRequest");
        expected.put(0x0011, "MsgRcptAck");
        expected.put(0x0012, "ConnectReject");
        expected.put(0x0013, "ConnectReply");
        expected.put(0x0014, "ReadyToUse");
        expected.put(0x0015, "DisconnectRequest");
        expected.put(0x0016, "DisconnectReply");
        expected.put(0x0017, "ServiceIDResReq");
        expected.put(0x0018, "ServiceIDResReqResp");
        expected.put(0x0019, "LoadAlternatePath");
        expected.put(0x001A, "AlternatePathResponse");
        final Map<Integer, String> actual = new LinkedHashMap<>();
        for (final CmAttribute attribute : CmAttribute.values())
        {
            actual.put(attribute.id(), attribute.displayName());
            assertSame(attribute, CmAttribute.of(attribute.id()));
        }
        assertEquals(expected, actual);
        assertNull(CmAttribute.of(0x0002));
        assertNull(CmAttribute.of(0xFFFF));
    }

    @Test
    void privateDataLengthsMatchIbCmDataSizes()
    {
        // enum ib_cm_data_size in include/rdma/ib_cm.h
        assertEquals(92, CmAttribute.CONNECT_REQUEST.privateDataLength());
        assertEquals(222, CmAttribute.MSG_RCPT_ACK.privateDataLength());
        assertEquals(148, CmAttribute.CONNECT_REJECT.privateDataLength());
        assertEquals(196, CmAttribute.CONNECT_REPLY.privateDataLength());
        assertEquals(224, CmAttribute.READY_TO_USE.privateDataLength());
        assertEquals(220, CmAttribute.DISCONNECT_REQUEST.privateDataLength());
        assertEquals(224, CmAttribute.DISCONNECT_REPLY.privateDataLength());
        assertEquals(216, CmAttribute.SERVICE_ID_RES_REQ.privateDataLength());
        assertEquals(136, CmAttribute.SERVICE_ID_RES_REQ_RESP.privateDataLength());
        assertEquals(168, CmAttribute.LOAD_ALTERNATE_PATH.privateDataLength());
        assertEquals(148, CmAttribute.ALTERNATE_PATH_RESPONSE.privateDataLength());
        final CmMessage[] messages = {new CmReqMessage(), new CmMraMessage(), new CmRejMessage(), new CmRepMessage(),
            new CmRtuMessage(), new CmDreqMessage(), new CmDrepMessage()};
        for (final CmMessage message : messages)
        {
            assertEquals(message.attribute().privateDataLength(), message.privateDataLength(),
                message.attribute().shortName());
        }
    }

    @Test
    void rejectReasonsAreExactlyIbCmRejReason()
    {
        assertEquals(34, CmRejectReason.values().length);
        for (int code = 1; code <= 33; code++)
        {
            final CmRejectReason reason = CmRejectReason.of(code);
            assertEquals(code, reason.code(), "code " + code);
            assertEquals(reason.ordinal() + 1, code, "reasons 1..33 are contiguous and in order");
        }
        assertNull(CmRejectReason.of(0));
        assertNull(CmRejectReason.of(34));
        assertSame(CmRejectReason.VENDOR_OPTION_NOT_SUPPORTED, CmRejectReason.of(35));
        assertNull(CmRejectReason.of(36));
        assertNull(CmRejectReason.of(0xFFFF));
        assertEquals(8, CmRejectReason.INVALID_SERVICE_ID.code());
        assertEquals(10, CmRejectReason.STALE_CONN.code());
        assertEquals(12, CmRejectReason.INVALID_GID.code());
        assertEquals(28, CmRejectReason.CONSUMER_DEFINED.code());
        final Set<String> descriptions = new HashSet<>();
        for (final CmRejectReason reason : CmRejectReason.values())
        {
            assertTrue(descriptions.add(reason.description()), "duplicate description " + reason.description());
        }
    }

    @Test
    void managementClassesAndMethodsMatchIbMad()
    {
        final Map<String, Integer> classes = new LinkedHashMap<>();
        for (final ManagementClass mgmtClass : ManagementClass.values())
        {
            classes.put(mgmtClass.name(), mgmtClass.code());
            assertSame(mgmtClass, ManagementClass.of(mgmtClass.code()));
        }
        assertEquals(Map.ofEntries(
            Map.entry("SUBN_LID_ROUTED", 0x01), Map.entry("SUBN_ADM", 0x03), Map.entry("PERF_MGMT", 0x04),
            Map.entry("BM", 0x05), Map.entry("DEVICE_MGMT", 0x06), Map.entry("CM", 0x07), Map.entry("SNMP", 0x08),
            Map.entry("DEVICE_ADM", 0x10), Map.entry("BOOT_MGMT", 0x11), Map.entry("BIS", 0x12),
            Map.entry("CONG_MGMT", 0x21), Map.entry("SUBN_DIRECTED_ROUTE", 0x81)), classes);
        assertEquals("CM", ManagementClass.describe(0x07));
        assertEquals("vendor-specific (range 1)", ManagementClass.describe(0x09));
        assertEquals("vendor-specific (range 2)", ManagementClass.describe(0x4F));
        assertEquals("reserved", ManagementClass.describe(0x50));

        assertEquals(0x03, MadMethod.SEND.code());
        assertEquals("Send()", MadMethod.describe(0x03));
        assertEquals("GetResp()", MadMethod.describe(0x81));
        assertEquals("ReportResp()", MadMethod.describe(0x86));
        assertEquals("GetTableResp()", MadMethod.describe(0x92));
        assertEquals("method 0x7e", MadMethod.describe(0x7E));
        assertSame(MadMethod.GET, MadMethod.of(0x81));

        assertEquals("success", MadHeader.describeStatus(0));
        assertEquals("busy", MadHeader.describeStatus(0x0001));
        assertEquals("method not supported", MadHeader.describeStatus(0x0008));
        assertEquals("invalid value in attribute or modifier", MadHeader.describeStatus(0x001C));
    }

    @Test
    void serviceIdsAndTimeoutsAndMtus()
    {
        assertEquals(0x0000_0000_0106_1d2fL, RdmaCmServiceId.serviceId(RdmaCmServiceId.PS_TCP, 7471));
        assertEquals(7471, RdmaCmServiceId.port(0x0000_0000_0106_1d2fL));
        assertEquals(RdmaCmServiceId.PS_TCP, RdmaCmServiceId.portSpace(0x0000_0000_0106_1d2fL));
        assertEquals("RDMA CM UDP port 53", RdmaCmServiceId.describe(RdmaCmServiceId.serviceId(0x0111, 53)));
        assertNull(RdmaCmServiceId.describe(0x1234_5678_0000_0001L), "not an RDMA CM IP service");
        // 4.096 us * 2^22 = 17.18 s: CMA_CM_RESPONSE_TIMEOUT in the kernel sources read for protocol-facts.
        assertEquals(17_179_869_184L, CmReqMessage.cmTimeoutNs(22));
        assertEquals(4096, CmReqMessage.cmTimeoutNs(0));
        assertEquals(256, CmReqMessage.mtuBytes(1));
        assertEquals(4096, CmReqMessage.mtuBytes(5));
        assertEquals(0, CmReqMessage.mtuBytes(6));
        assertTrue(Gid.isIpv4Mapped(0, Gid.ipv4MappedLow(0x0A4D_0001)));
        assertEquals("::ffff:10.77.0.1", Gid.toString(0, Gid.ipv4MappedLow(0x0A4D_0001)));
        assertEquals("fe80::1", Gid.toString(0xfe80_0000_0000_0000L, 1));
    }
}
