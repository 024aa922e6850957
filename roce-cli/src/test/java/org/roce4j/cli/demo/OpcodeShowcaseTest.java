package org.roce4j.cli.demo;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.Transport;
import org.roce4j.wire.header.AethHeader;
import org.roce4j.wire.header.BthHeader;
import org.roce4j.wire.mad.CmAttribute;
import org.roce4j.wire.mad.CmReqMessage;
import org.roce4j.wire.mad.CmaHeader;
import org.roce4j.wire.mad.MadHeader;
import org.roce4j.wire.mad.RdmaCmServiceId;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The showcase frames: all well formed, every opcode present, and the conversation consistent (responses carry
 * the request's PSN, AckReq on RC message ends, the CM REQ as RDMA CM builds it).
 */
class OpcodeShowcaseTest
{
    /** A copy of one showcase frame. */
    private record Built(String description, byte[] bytes)
    {
    }

    private static List<Built> build()
    {
        final List<Built> frames = new ArrayList<>();
        final int count = new OpcodeShowcase().build((description, buffer, offset, length) ->
        {
            final byte[] bytes = new byte[length];
            buffer.getBytes(offset, bytes);
            frames.add(new Built(description, bytes));
        });
        assertEquals(count, frames.size());
        return frames;
    }

    @Test
    void everyFrameIsWellFormedAndEveryOpcodeAppears()
    {
        final RoceFrameParser parser = new RoceFrameParser();
        final Set<Opcode> seen = EnumSet.noneOf(Opcode.class);
        int ipv6 = 0;
        int vlan = 0;
        for (final Built frame : build())
        {
            assertEquals(FrameStatus.OK, parser.parse(new UnsafeBuffer(frame.bytes()), 0, frame.bytes().length),
                frame.description());
            assertTrue(!frame.description().isBlank());
            seen.add(parser.opcode());
            ipv6 += 6 == parser.ipVersion() ? 1 : 0;
            vlan += parser.ethernet().hasVlanTag() ? 1 : 0;
            final BthHeader bth = parser.bth();
            final Opcode opcode = parser.opcode();
            assertEquals(opcode.canRequestAck() && opcode.position().isEnd(), bth.ackReq() &&
                Transport.RC == opcode.transport(), "AckReq on RC message ends only: " + frame.description());
        }
        assertEquals(EnumSet.allOf(Opcode.class), seen);
        assertEquals(1, ipv6);
        assertEquals(1, vlan);
    }

    @Test
    void responsesEchoTheirRequestsPsnAndCountMessages()
    {
        final RoceFrameParser parser = new RoceFrameParser();
        int lastRequestPsn = -1;
        int lastMsn = 0;
        for (final Built frame : build())
        {
            parser.parse(new UnsafeBuffer(frame.bytes()), 0, frame.bytes().length);
            final Opcode opcode = parser.opcode();
            if (Transport.RC != opcode.transport())
            {
                continue;
            }
            if (opcode.isRequest())
            {
                lastRequestPsn = parser.bth().psn();
            }
            else if (opcode.has(org.roce4j.wire.ExtHeader.AETH))
            {
                final int syndrome = parser.aeth().syndrome();
                assertTrue(parser.aeth().msn() >= lastMsn, "MSN never goes back: " + frame.description());
                lastMsn = parser.aeth().msn();
                if (AethHeader.TYPE_ACK == AethHeader.type(syndrome) && Opcode.RC_ACKNOWLEDGE == opcode)
                {
                    assertEquals(lastRequestPsn, parser.bth().psn(), "an ACK acknowledges the last request");
                }
            }
        }
        assertTrue(lastMsn > 10, "messages were counted");
    }

    @Test
    void connectRequestIsWhatRdmaCmSends()
    {
        final RoceFrameParser parser = new RoceFrameParser();
        int requests = 0;
        for (final Built frame : build())
        {
            final UnsafeBuffer buffer = new UnsafeBuffer(frame.bytes());
            parser.parse(buffer, 0, frame.bytes().length);
            if (BthHeader.GSI_QPN != parser.bth().destQp() || Opcode.UD_SEND_ONLY != parser.opcode())
            {
                continue;
            }
            requests++;
            final MadHeader mad = new MadHeader().wrap(buffer, parser.payloadOffset());
            assertEquals(CmAttribute.CONNECT_REQUEST, CmAttribute.of(mad.attributeId()));
            assertEquals(MadHeader.MAD_LENGTH, parser.payloadLength());
            final CmReqMessage req = new CmReqMessage().wrapMad(buffer, parser.payloadOffset());
            assertEquals(RdmaCmServiceId.serviceId(RdmaCmServiceId.PS_TCP, OpcodeShowcase.RDMA_CM_PORT),
                req.serviceId());
            assertEquals(DemoEndpoint.A.qpn(), req.localQpn());
            assertEquals(OpcodeShowcase.FIRST_PSN, req.startingPsn());
            final CmaHeader cma = new CmaHeader().wrap(buffer, req.privateDataBufferOffset());
            assertEquals(parser.ipv4().source(), cma.sourceIpv4());
            assertEquals(parser.ipv4().destination(), cma.destinationIpv4());
        }
        assertEquals(1, requests);
    }
}
