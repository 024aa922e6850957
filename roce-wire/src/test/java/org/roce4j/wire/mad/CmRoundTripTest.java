package org.roce4j.wire.mad;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.roce4j.wire.Vectors;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every getter/setter pair of the MAD, CM and cma_hdr flyweights: each field round-trips its largest value, and
 * writing one field never disturbs another (checked on an all-zero and an all-ones buffer). Then every CM message
 * of the real capture is rebuilt field by field into a zeroed MAD and must come out byte-identical, which proves
 * that the setters cover every non-reserved bit the kernel wrote.
 */
class CmRoundTripTest
{
    /** A field under test: its width and how to read and write it through a flyweight. */
    private static final class Field
    {
        final String name;
        final long max;
        final LongSupplier get;
        final LongConsumer set;

        Field(final String name, final int bits, final LongSupplier get, final LongConsumer set)
        {
            this.name = name;
            this.max = 64 == bits ? -1L : (1L << bits) - 1;
            this.get = get;
            this.set = set;
        }
    }

    private final UnsafeBuffer buffer = new UnsafeBuffer(new byte[MadHeader.MAD_LENGTH + 8]);

    @Test
    void madHeaderFieldsAreIndependent()
    {
        final MadHeader h = new MadHeader().wrap(buffer, 4);
        final List<Field> fields = new ArrayList<>();
        fields.add(new Field("baseVersion", 8, h::baseVersion, v -> h.baseVersion((int)v)));
        fields.add(new Field("mgmtClass", 8, h::mgmtClass, v -> h.mgmtClass((int)v)));
        fields.add(new Field("classVersion", 8, h::classVersion, v -> h.classVersion((int)v)));
        fields.add(new Field("method", 8, h::method, v -> h.method((int)v)));
        fields.add(new Field("status", 16, h::status, v -> h.status((int)v)));
        fields.add(new Field("classSpecific", 16, h::classSpecific, v -> h.classSpecific((int)v)));
        fields.add(new Field("transactionId", 64, h::transactionId, h::transactionId));
        fields.add(new Field("attributeId", 16, h::attributeId, v -> h.attributeId((int)v)));
        fields.add(new Field("reserved", 16, h::reserved, v -> h.reserved((int)v)));
        fields.add(new Field("attributeModifier", 32, () -> h.attributeModifier() & 0xFFFF_FFFFL,
            v -> h.attributeModifier((int)v)));
        checkIndependent(fields, 4, MadHeader.LENGTH);

        buffer.setMemory(0, buffer.capacity(), (byte)0);
        h.cm(CmAttribute.CONNECT_REPLY, 0x1122_3344_5566_7788L).response(true);
        assertEquals(0x83, h.method());
        assertTrue(h.isResponse());
        assertEquals("SendResp()", MadMethod.describe(h.method()));
        assertEquals(CmAttribute.CONNECT_REPLY.id(), h.attributeId());
        assertEquals(0x1122_3344_5566_7788L, h.transactionId());
    }

    @Test
    void reqFieldsAreIndependent()
    {
        final CmReqMessage m = new CmReqMessage().wrapMad(buffer, 4);
        final List<Field> fields = new ArrayList<>();
        fields.add(new Field("localCommId", 32, () -> m.localCommId() & 0xFFFF_FFFFL, v -> m.localCommId((int)v)));
        fields.add(new Field("vendorId", 24, m::vendorId, v -> m.vendorId((int)v)));
        fields.add(new Field("serviceId", 64, m::serviceId, m::serviceId));
        fields.add(new Field("localCaGuid", 64, m::localCaGuid, m::localCaGuid));
        fields.add(new Field("localQkey", 32, () -> m.localQkey() & 0xFFFF_FFFFL, v -> m.localQkey((int)v)));
        fields.add(new Field("localQpn", 24, m::localQpn, v -> m.localQpn((int)v)));
        fields.add(new Field("responderResources", 8, m::responderResources, v -> m.responderResources((int)v)));
        fields.add(new Field("localEecn", 24, m::localEecn, v -> m.localEecn((int)v)));
        fields.add(new Field("initiatorDepth", 8, m::initiatorDepth, v -> m.initiatorDepth((int)v)));
        fields.add(new Field("remoteEecn", 24, m::remoteEecn, v -> m.remoteEecn((int)v)));
        fields.add(new Field("remoteCmResponseTimeout", 5, m::remoteCmResponseTimeout,
            v -> m.remoteCmResponseTimeout((int)v)));
        fields.add(new Field("transportServiceType", 2, m::transportServiceType,
            v -> m.transportServiceType((int)v)));
        fields.add(bool("endToEndFlowControl", m::endToEndFlowControl, m::endToEndFlowControl));
        fields.add(new Field("startingPsn", 24, m::startingPsn, v -> m.startingPsn((int)v)));
        fields.add(new Field("localCmResponseTimeout", 5, m::localCmResponseTimeout,
            v -> m.localCmResponseTimeout((int)v)));
        fields.add(new Field("retryCount", 3, m::retryCount, v -> m.retryCount((int)v)));
        fields.add(new Field("pkey", 16, m::pkey, v -> m.pkey((int)v)));
        fields.add(new Field("pathMtu", 4, m::pathMtu, v -> m.pathMtu((int)v)));
        fields.add(bool("rdcExists", m::rdcExists, m::rdcExists));
        fields.add(new Field("rnrRetryCount", 3, m::rnrRetryCount, v -> m.rnrRetryCount((int)v)));
        fields.add(new Field("maxCmRetries", 4, m::maxCmRetries, v -> m.maxCmRetries((int)v)));
        fields.add(bool("srq", m::srq, m::srq));
        fields.add(new Field("extendedTransportType", 3, m::extendedTransportType,
            v -> m.extendedTransportType((int)v)));
        pathFields(fields, "primary.", m.primaryPath());
        pathFields(fields, "alternate.", m.alternatePath());
        fields.add(bool("sapSupported", m::sapSupported, m::sapSupported));
        checkIndependent(fields, 4 + MadHeader.LENGTH, CmReqMessage.PRIVATE_DATA_OFFSET);
        assertEquals(92, CmReqMessage.PRIVATE_DATA_LENGTH);
    }

    @Test
    void repFieldsAreIndependent()
    {
        final CmRepMessage m = new CmRepMessage().wrapMad(buffer, 4);
        final List<Field> fields = new ArrayList<>();
        commIds(fields, m, () -> m.remoteCommId() & 0xFFFF_FFFFL, v -> m.remoteCommId((int)v));
        fields.add(new Field("localQkey", 32, () -> m.localQkey() & 0xFFFF_FFFFL, v -> m.localQkey((int)v)));
        fields.add(new Field("localQpn", 24, m::localQpn, v -> m.localQpn((int)v)));
        fields.add(new Field("vendorId", 24, m::vendorId, v -> m.vendorId((int)v)));
        fields.add(new Field("localEecn", 24, m::localEecn, v -> m.localEecn((int)v)));
        fields.add(new Field("startingPsn", 24, m::startingPsn, v -> m.startingPsn((int)v)));
        fields.add(new Field("responderResources", 8, m::responderResources, v -> m.responderResources((int)v)));
        fields.add(new Field("initiatorDepth", 8, m::initiatorDepth, v -> m.initiatorDepth((int)v)));
        fields.add(new Field("targetAckDelay", 5, m::targetAckDelay, v -> m.targetAckDelay((int)v)));
        fields.add(new Field("failoverAccepted", 2, m::failoverAccepted, v -> m.failoverAccepted((int)v)));
        fields.add(bool("endToEndFlowControl", m::endToEndFlowControl, m::endToEndFlowControl));
        fields.add(new Field("rnrRetryCount", 3, m::rnrRetryCount, v -> m.rnrRetryCount((int)v)));
        fields.add(bool("srq", m::srq, m::srq));
        fields.add(new Field("localCaGuid", 64, m::localCaGuid, m::localCaGuid));
        checkIndependent(fields, 4 + MadHeader.LENGTH, CmRepMessage.PRIVATE_DATA_OFFSET);
        assertEquals(196, CmRepMessage.PRIVATE_DATA_LENGTH);
    }

    @Test
    void rejMraDreqRtuDrepFieldsAreIndependent()
    {
        final CmRejMessage rej = new CmRejMessage().wrapMad(buffer, 4);
        final List<Field> rejFields = new ArrayList<>();
        commIds(rejFields, rej, () -> rej.remoteCommId() & 0xFFFF_FFFFL, v -> rej.remoteCommId((int)v));
        rejFields.add(new Field("messageRejected", 2, rej::messageRejected, v -> rej.messageRejected((int)v)));
        rejFields.add(new Field("ariLength", 7, rej::ariLength, v -> rej.ariLength((int)v)));
        rejFields.add(new Field("reason", 16, rej::reason, v -> rej.reason((int)v)));
        checkIndependent(rejFields, 4 + MadHeader.LENGTH, CmRejMessage.ARI_OFFSET);
        assertEquals(148, CmRejMessage.PRIVATE_DATA_LENGTH);

        final CmMraMessage mra = new CmMraMessage().wrapMad(buffer, 4);
        final List<Field> mraFields = new ArrayList<>();
        commIds(mraFields, mra, () -> mra.remoteCommId() & 0xFFFF_FFFFL, v -> mra.remoteCommId((int)v));
        mraFields.add(new Field("messageMraed", 2, mra::messageMraed, v -> mra.messageMraed((int)v)));
        mraFields.add(new Field("serviceTimeout", 5, mra::serviceTimeout, v -> mra.serviceTimeout((int)v)));
        checkIndependent(mraFields, 4 + MadHeader.LENGTH, CmMraMessage.PRIVATE_DATA_OFFSET);
        assertEquals(222, CmMraMessage.PRIVATE_DATA_LENGTH);

        final CmDreqMessage dreq = new CmDreqMessage().wrapMad(buffer, 4);
        final List<Field> dreqFields = new ArrayList<>();
        commIds(dreqFields, dreq, () -> dreq.remoteCommId() & 0xFFFF_FFFFL, v -> dreq.remoteCommId((int)v));
        dreqFields.add(new Field("remoteQpn", 24, dreq::remoteQpn, v -> dreq.remoteQpn((int)v)));
        checkIndependent(dreqFields, 4 + MadHeader.LENGTH, CmDreqMessage.PRIVATE_DATA_OFFSET);
        assertEquals(220, CmDreqMessage.PRIVATE_DATA_LENGTH);

        final CmRtuMessage rtu = new CmRtuMessage().wrapMad(buffer, 4);
        final List<Field> rtuFields = new ArrayList<>();
        commIds(rtuFields, rtu, () -> rtu.remoteCommId() & 0xFFFF_FFFFL, v -> rtu.remoteCommId((int)v));
        checkIndependent(rtuFields, 4 + MadHeader.LENGTH, CmRtuMessage.PRIVATE_DATA_OFFSET);
        assertEquals(224, CmRtuMessage.PRIVATE_DATA_LENGTH);

        final CmDrepMessage drep = new CmDrepMessage().wrapMad(buffer, 4);
        final List<Field> drepFields = new ArrayList<>();
        commIds(drepFields, drep, () -> drep.remoteCommId() & 0xFFFF_FFFFL, v -> drep.remoteCommId((int)v));
        checkIndependent(drepFields, 4 + MadHeader.LENGTH, CmDrepMessage.PRIVATE_DATA_OFFSET);
        assertEquals(224, CmDrepMessage.PRIVATE_DATA_LENGTH);
    }

    @Test
    void cmaHeaderFieldsAndIpv4Form()
    {
        final CmaHeader h = new CmaHeader().wrap(buffer, 4);
        final List<Field> fields = new ArrayList<>();
        fields.add(new Field("version", 8, h::version, v -> h.version((int)v)));
        fields.add(new Field("ipVersion", 4, h::ipVersion, v -> h.ipVersion((int)v)));
        fields.add(new Field("port", 16, h::port, v -> h.port((int)v)));
        checkIndependent(fields, 4, CmaHeader.SOURCE_OFFSET);

        buffer.setMemory(0, buffer.capacity(), (byte)0x5A);
        h.ipv4(49376, 0x0A4D_0002, 0x0A4D_0003);
        final byte[] expected = new byte[CmaHeader.LENGTH];
        expected[1] = 0x40;
        expected[2] = (byte)0xc0;
        expected[3] = (byte)0xe0;
        expected[16] = 10;
        expected[17] = 77;
        expected[19] = 2;
        expected[32] = 10;
        expected[33] = 77;
        expected[35] = 3;
        final byte[] actual = new byte[CmaHeader.LENGTH];
        buffer.getBytes(4, actual);
        assertArrayEquals(expected, actual, "cma_format_hdr layout: zero pad, address in the last 4 bytes");
        assertEquals("10.77.0.2", h.sourceToString());
        assertEquals("10.77.0.3", h.destinationToString());

        h.ipv6(7471, 0xfe80_0000_0000_0000L, 1L, 0xfe80_0000_0000_0000L, 2L);
        assertEquals(6, h.ipVersion());
        assertEquals("fe80::1", h.sourceToString());
        assertEquals("fe80::2", h.destinationToString());
        assertEquals(7471, h.port());
    }

    @Test
    void privateDataAndAriAreBoundedAndZeroPadded()
    {
        final CmReqMessage req = new CmReqMessage().wrapMad(buffer, 0);
        buffer.setMemory(0, buffer.capacity(), (byte)0x77);
        final UnsafeBuffer data = new UnsafeBuffer(new byte[]{1, 2, 3});
        req.putPrivateData(data, 0, 3);
        assertEquals(1, buffer.getByte(MadHeader.LENGTH + CmReqMessage.PRIVATE_DATA_OFFSET));
        assertEquals(3, buffer.getByte(MadHeader.LENGTH + CmReqMessage.PRIVATE_DATA_OFFSET + 2));
        assertEquals(0, buffer.getByte(MadHeader.MAD_LENGTH - 1), "rest of the private data zeroed");
        assertEquals(0x77, buffer.getByte(MadHeader.MAD_LENGTH) & 0xFF, "nothing written past the MAD");
        final IllegalArgumentException tooLong = assertThrows(IllegalArgumentException.class,
            () -> req.putPrivateData(new UnsafeBuffer(new byte[93]), 0, 93));
        assertTrue(tooLong.getMessage().contains("REQ private data holds 0..92 bytes"), tooLong.getMessage());

        final CmRejMessage rej = new CmRejMessage().wrapMad(buffer, 0).clear();
        rej.ari(new UnsafeBuffer(new byte[16]), 0, 16);
        assertEquals(16, rej.ariLength());
        assertThrows(IllegalArgumentException.class, () -> rej.ari(new UnsafeBuffer(new byte[80]), 0, 73));
    }

    @Test
    void everyCmMessageOfTheCaptureRebuildsByteIdenticalFromItsFields()
    {
        final UnsafeBuffer rebuilt = new UnsafeBuffer(new byte[MadHeader.MAD_LENGTH]);
        int messages = 0;
        for (final CmFrames.CmFrame frame : CmFrames.of(Vectors.RXE_PAIR))
        {
            rebuilt.setMemory(0, rebuilt.capacity(), (byte)0);
            copyHeader(frame.buffer(), frame.madOffset(), rebuilt);
            copyMessage(frame.attribute(), frame.buffer(), frame.madOffset(), rebuilt);
            final byte[] expected = new byte[MadHeader.MAD_LENGTH];
            frame.buffer().getBytes(frame.madOffset(), expected);
            assertArrayEquals(expected, rebuilt.byteArray(), frame.attribute() + " at frame " + frame.frameNumber());
            messages++;
        }
        assertEquals(17, messages);
    }

    private static void copyHeader(final UnsafeBuffer from, final int madOffset, final UnsafeBuffer to)
    {
        final MadHeader in = new MadHeader().wrap(from, madOffset);
        new MadHeader().wrap(to, 0)
            .baseVersion(in.baseVersion()).mgmtClass(in.mgmtClass()).classVersion(in.classVersion())
            .method(in.method()).status(in.status()).classSpecific(in.classSpecific())
            .transactionId(in.transactionId()).attributeId(in.attributeId()).reserved(in.reserved())
            .attributeModifier(in.attributeModifier());
    }

    private static void copyMessage(
        final CmAttribute attribute, final UnsafeBuffer from, final int madOffset, final UnsafeBuffer to)
    {
        final CmMessage out;
        switch (attribute)
        {
            case CONNECT_REQUEST:
            {
                final CmReqMessage in = new CmReqMessage().wrapMad(from, madOffset);
                final CmReqMessage req = new CmReqMessage().wrapMad(to, 0)
                    .localCommId(in.localCommId()).vendorId(in.vendorId()).serviceId(in.serviceId())
                    .localCaGuid(in.localCaGuid()).localQkey(in.localQkey()).localQpn(in.localQpn())
                    .responderResources(in.responderResources()).localEecn(in.localEecn())
                    .initiatorDepth(in.initiatorDepth()).remoteEecn(in.remoteEecn())
                    .remoteCmResponseTimeout(in.remoteCmResponseTimeout())
                    .transportServiceType(in.transportServiceType()).endToEndFlowControl(in.endToEndFlowControl())
                    .startingPsn(in.startingPsn()).localCmResponseTimeout(in.localCmResponseTimeout())
                    .retryCount(in.retryCount()).pkey(in.pkey()).pathMtu(in.pathMtu()).rdcExists(in.rdcExists())
                    .rnrRetryCount(in.rnrRetryCount()).maxCmRetries(in.maxCmRetries()).srq(in.srq())
                    .extendedTransportType(in.extendedTransportType()).sapSupported(in.sapSupported());
                copyPath(in.primaryPath(), req.primaryPath());
                copyPath(in.alternatePath(), req.alternatePath());
                out = req;
                break;
            }
            case CONNECT_REPLY:
            {
                final CmRepMessage in = new CmRepMessage().wrapMad(from, madOffset);
                out = new CmRepMessage().wrapMad(to, 0)
                    .localCommId(in.localCommId()).remoteCommId(in.remoteCommId()).localQkey(in.localQkey())
                    .localQpn(in.localQpn()).vendorId(in.vendorId()).localEecn(in.localEecn())
                    .startingPsn(in.startingPsn()).responderResources(in.responderResources())
                    .initiatorDepth(in.initiatorDepth()).targetAckDelay(in.targetAckDelay())
                    .failoverAccepted(in.failoverAccepted()).endToEndFlowControl(in.endToEndFlowControl())
                    .rnrRetryCount(in.rnrRetryCount()).srq(in.srq()).localCaGuid(in.localCaGuid());
                break;
            }
            case CONNECT_REJECT:
            {
                final CmRejMessage in = new CmRejMessage().wrapMad(from, madOffset);
                final CmRejMessage rej = new CmRejMessage().wrapMad(to, 0)
                    .localCommId(in.localCommId()).remoteCommId(in.remoteCommId())
                    .messageRejected(in.messageRejected()).reason(in.reason());
                rej.ari(from, in.ariBufferOffset(), in.ariLength());
                out = rej;
                break;
            }
            case READY_TO_USE:
            {
                final CmRtuMessage in = new CmRtuMessage().wrapMad(from, madOffset);
                out = new CmRtuMessage().wrapMad(to, 0).localCommId(in.localCommId()).remoteCommId(in.remoteCommId());
                break;
            }
            case DISCONNECT_REQUEST:
            {
                final CmDreqMessage in = new CmDreqMessage().wrapMad(from, madOffset);
                out = new CmDreqMessage().wrapMad(to, 0).localCommId(in.localCommId())
                    .remoteCommId(in.remoteCommId()).remoteQpn(in.remoteQpn());
                break;
            }
            case DISCONNECT_REPLY:
            {
                final CmDrepMessage in = new CmDrepMessage().wrapMad(from, madOffset);
                out = new CmDrepMessage().wrapMad(to, 0).localCommId(in.localCommId())
                    .remoteCommId(in.remoteCommId());
                break;
            }
            default:
                throw new AssertionError("capture holds no " + attribute);
        }
        out.putPrivateData(from, madOffset + MadHeader.LENGTH + out.privateDataOffset(), out.privateDataLength());
    }

    private static void copyPath(final CmPath in, final CmPath out)
    {
        out.localLid(in.localLid()).remoteLid(in.remoteLid())
            .localGid(in.localGidHigh(), in.localGidLow()).remoteGid(in.remoteGidHigh(), in.remoteGidLow())
            .flowLabel(in.flowLabel()).packetRate(in.packetRate()).trafficClass(in.trafficClass())
            .hopLimit(in.hopLimit()).sl(in.sl()).subnetLocal(in.subnetLocal()).localAckTimeout(in.localAckTimeout());
    }

    private static void pathFields(final List<Field> fields, final String prefix, final CmPath p)
    {
        fields.add(new Field(prefix + "localLid", 16, p::localLid, v -> p.localLid((int)v)));
        fields.add(new Field(prefix + "remoteLid", 16, p::remoteLid, v -> p.remoteLid((int)v)));
        fields.add(new Field(prefix + "localGidHigh", 64, p::localGidHigh, v -> p.localGid(v, p.localGidLow())));
        fields.add(new Field(prefix + "localGidLow", 64, p::localGidLow, v -> p.localGid(p.localGidHigh(), v)));
        fields.add(new Field(prefix + "remoteGidHigh", 64, p::remoteGidHigh, v -> p.remoteGid(v, p.remoteGidLow())));
        fields.add(new Field(prefix + "remoteGidLow", 64, p::remoteGidLow, v -> p.remoteGid(p.remoteGidHigh(), v)));
        fields.add(new Field(prefix + "flowLabel", 20, p::flowLabel, v -> p.flowLabel((int)v)));
        fields.add(new Field(prefix + "packetRate", 6, p::packetRate, v -> p.packetRate((int)v)));
        fields.add(new Field(prefix + "trafficClass", 8, p::trafficClass, v -> p.trafficClass((int)v)));
        fields.add(new Field(prefix + "hopLimit", 8, p::hopLimit, v -> p.hopLimit((int)v)));
        fields.add(new Field(prefix + "sl", 4, p::sl, v -> p.sl((int)v)));
        fields.add(bool(prefix + "subnetLocal", p::subnetLocal, p::subnetLocal));
        fields.add(new Field(prefix + "localAckTimeout", 5, p::localAckTimeout, v -> p.localAckTimeout((int)v)));
    }

    private static void commIds(
        final List<Field> fields, final CmMessage m, final LongSupplier remoteGet, final LongConsumer remoteSet)
    {
        fields.add(new Field("localCommId", 32, () -> m.localCommId() & 0xFFFF_FFFFL, v -> m.localCommId((int)v)));
        fields.add(new Field("remoteCommId", 32, remoteGet, remoteSet));
    }

    private interface BoolGet
    {
        boolean get();
    }

    private interface BoolSet
    {
        Object set(boolean value);
    }

    private static Field bool(final String name, final BoolGet get, final BoolSet set)
    {
        return new Field(name, 1, () -> get.get() ? 1 : 0, v -> set.set(0 != v));
    }

    /**
     * For each field: on a zero buffer, writing its maximum reads back as the maximum and leaves every other field
     * 0; on an all-ones buffer, writing 0 reads back 0 and leaves every other field at its maximum. Finally the
     * fields together must cover exactly the bits that are not reserved: nothing is written outside the region.
     */
    private void checkIndependent(final List<Field> fields, final int regionOffset, final int regionLength)
    {
        for (final Field field : fields)
        {
            buffer.setMemory(0, buffer.capacity(), (byte)0);
            field.set.accept(field.max);
            assertEquals(field.max, field.get.getAsLong(), field.name + " round trip of its maximum");
            for (final Field other : fields)
            {
                if (other != field)
                {
                    assertEquals(0, other.get.getAsLong(), "writing " + field.name + " changed " + other.name);
                }
            }
            assertOutsideRegion((byte)0, regionOffset, regionLength, field.name);

            buffer.setMemory(0, buffer.capacity(), (byte)0xFF);
            field.set.accept(0);
            assertEquals(0, field.get.getAsLong(), field.name + " round trip of 0");
            for (final Field other : fields)
            {
                if (other != field)
                {
                    assertEquals(other.max, other.get.getAsLong(), "clearing " + field.name + " changed " + other.name);
                }
            }
            assertOutsideRegion((byte)0xFF, regionOffset, regionLength, field.name);
        }
    }

    private void assertOutsideRegion(final byte expected, final int regionOffset, final int regionLength,
        final String field)
    {
        for (int i = 0; i < buffer.capacity(); i++)
        {
            if (i < regionOffset || i >= regionOffset + regionLength)
            {
                assertEquals(expected, buffer.getByte(i), field + " wrote byte " + i + " outside its header");
            }
        }
    }
}
