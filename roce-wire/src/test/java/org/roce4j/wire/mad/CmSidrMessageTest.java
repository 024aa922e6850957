package org.roce4j.wire.mad;

import java.util.Arrays;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.test.Hex;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The SIDR_REQ and SIDR_REP flyweights against golden bytes laid out by hand from the kernel's structs
 * (include/rdma/ibta_vol1_c12.h CM_SIDR_REQ_* and CM_SIDR_REP_*, cm.c cm_format_sidr_req / cm_format_sidr_rep,
 * cma.c cma_format_hdr for the rdma_cm header in the SIDR_REQ's private data), and the fields that share bytes.
 */
class CmSidrMessageTest
{
    /** udaddy's default port 7174 in RDMA_PS_UDP. */
    private static final long SERVICE_ID = RdmaCmServiceId.serviceId(RdmaCmServiceId.PS_UDP, 7174);
    private static final int COMM_ID = 0x0fbc6f2d;
    /** cm_form_tid: hi_tid 1, the comm ID's bytes reversed. */
    private static final long TID = 0x0000_0001_2d6f_bc0fL;

    /** The hex dump of a MAD's first bytes, zero-padded to 256 as the kernel's zeroed MADs are. */
    private static byte[] mad(final String hex)
    {
        return Arrays.copyOf(Hex.bytes(hex), MadHeader.MAD_LENGTH);
    }

    @Test
    void sidrReqMatchesTheKernelsLayout()
    {
        final byte[] golden = mad(
            // MAD header: base 1, class 0x07 CM, class version 2, Send; TID; attribute 0x0017
            "01 07 02 03 0000 0000 00000001 2d6fbc0f 0017 0000 00000000" +
            // Request ID, P_Key 0xFFFF, reserved, Service ID 0x01111c06
            "0fbc6f2d ffff 0000 0000000001111c06" +
            // cma_hdr: version 0, IPv4, source port 0xd40f, 10.77.0.2 -> 10.77.0.3 in the last 4 of 16 bytes
            "00 40 d40f 000000000000000000000000 0a4d0002 000000000000000000000000 0a4d0003" +
            // the application's first private byte after the 36-byte header
            "7f");
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[MadHeader.MAD_LENGTH]);
        new MadHeader().wrap(buffer, 0).cm(CmAttribute.SERVICE_ID_RES_REQ, TID);
        final CmSidrReqMessage m = new CmSidrReqMessage().wrapMad(buffer, 0).clear();
        m.requestId(COMM_ID).pkey(0xFFFF).serviceId(SERVICE_ID);
        new CmaHeader().wrap(buffer, m.privateDataBufferOffset())
            .ipv4(0xd40f, Ipv4Header.parseAddress("10.77.0.2"), Ipv4Header.parseAddress("10.77.0.3"));
        buffer.putByte(m.privateDataBufferOffset() + CmaHeader.LENGTH, (byte)0x7f);
        assertArrayEquals(golden, buffer.byteArray());

        final CmSidrReqMessage read = new CmSidrReqMessage().wrapMad(new UnsafeBuffer(golden), 0);
        assertEquals(COMM_ID, read.requestId());
        assertEquals(0xFFFF, read.pkey());
        assertEquals(SERVICE_ID, read.serviceId());
        assertEquals(16, read.privateDataOffset());
        assertEquals(216, read.privateDataLength());
        assertEquals(CmAttribute.SERVICE_ID_RES_REQ.privateDataLength(), read.privateDataLength());
        assertEquals("RDMA CM UDP port 7174", RdmaCmServiceId.describe(read.serviceId()));
    }

    @Test
    void sidrRepMatchesTheKernelsLayout()
    {
        final byte[] golden = mad(
            "01 07 02 03 0000 0000 00000001 2d6fbc0f 0018 0000 00000000" +
            // Request ID, status 0, AddInfo length 0, Vendor ID H 0x1234, QPN 0x000011, Vendor ID L 0x56
            "0fbc6f2d 00 00 1234 000011 56" +
            // Service ID (at byte 12, not 8-aligned), Q_Key RDMA_UDP_QKEY
            "0000000001111c06 01234567" +
            // 72 bytes of Additional Information (zero), then the private data
            "00".repeat(72) + "a5");
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[MadHeader.MAD_LENGTH]);
        new MadHeader().wrap(buffer, 0).cm(CmAttribute.SERVICE_ID_RES_REQ_RESP, TID);
        final CmSidrRepMessage m = new CmSidrRepMessage().wrapMad(buffer, 0).clear();
        m.requestId(COMM_ID).status(CmSidrRepMessage.STATUS_SUCCESS).addInfoLength(0).vendorId(0x123456).qpn(0x11)
            .serviceId(SERVICE_ID).qkey(0x0123_4567);
        m.putPrivateData(new UnsafeBuffer(new byte[] {(byte)0xa5}), 0, 1);
        assertArrayEquals(golden, buffer.byteArray());

        final CmSidrRepMessage read = new CmSidrRepMessage().wrapMad(new UnsafeBuffer(golden), 0);
        assertEquals(COMM_ID, read.requestId());
        assertEquals(0, read.status());
        assertEquals(0x123456, read.vendorId());
        assertEquals(0x11, read.qpn());
        assertEquals(SERVICE_ID, read.serviceId());
        assertEquals(0x0123_4567, read.qkey());
        assertEquals(96, read.privateDataOffset());
        assertEquals(136, read.privateDataLength());
        assertEquals(CmAttribute.SERVICE_ID_RES_REQ_RESP.privateDataLength(), read.privateDataLength());
        assertEquals(MadHeader.LENGTH + CmSidrRepMessage.ADD_INFO_OFFSET, read.addInfoBufferOffset());
    }

    @Test
    void sidrRepFieldsSharingBytesStayApart()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[MadHeader.MAD_LENGTH]);
        final CmSidrRepMessage m = new CmSidrRepMessage().wrapMad(buffer, 0).clear();
        m.qpn(0xFF_FFFF);
        assertEquals(0, m.vendorId(), "the QPN sits between the Vendor ID's halves");
        assertEquals(0, m.addInfoLength());
        m.qpn(0).vendorId(0xFF_FFFF);
        assertEquals(0, m.qpn());
        assertEquals(0, m.status());
        assertEquals(0, m.serviceId());
        m.vendorId(0).status(0xFF).addInfoLength(0xFF);
        assertEquals(0, m.qpn());
        assertEquals(0, m.vendorId());
        assertEquals(0, m.requestId());
    }

    @Test
    void statusNamesFollowIbCmSidrStatus()
    {
        assertEquals("IB_SIDR_SUCCESS", CmSidrRepMessage.describeStatus(0));
        assertEquals("IB_SIDR_UNSUPPORTED (no such service ID)", CmSidrRepMessage.describeStatus(1));
        assertEquals("IB_SIDR_REJECT (rejected by the service)", CmSidrRepMessage.describeStatus(2));
        assertEquals("IB_SIDR_NO_QP", CmSidrRepMessage.describeStatus(3));
        assertEquals("IB_SIDR_REDIRECT", CmSidrRepMessage.describeStatus(4));
        assertEquals("IB_SIDR_UNSUPPORTED_VERSION", CmSidrRepMessage.describeStatus(5));
        assertEquals("status 9", CmSidrRepMessage.describeStatus(9));
    }
}
