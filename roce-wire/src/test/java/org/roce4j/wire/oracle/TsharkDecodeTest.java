package org.roce4j.wire.oracle;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roce4j.wire.ExtHeader;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.pcap.PcapReader;
import org.roce4j.wire.test.FrameFields;
import org.roce4j.wire.test.OracleCapture;
import org.roce4j.wire.test.Seeded;
import org.roce4j.wire.test.SeededRandom;
import org.roce4j.wire.test.Tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Wireshark's dissector (tshark) as an independent decoder: frames built by roce-wire with random field values
 * are written to a pcap, and tshark must read back the same value for every field of every frame.
 *
 * <p>tshark decodes UDP port 4791 as RRoCE by default. The heuristic payload dissectors (RPC over RDMA, SMB
 * Direct, iSER, ..., and the guess that a payload starting with an EtherType is Ethernet) are disabled: random
 * payloads would otherwise be taken for their messages and end in "malformed" exceptions that stop the dissection
 * before the ICRC. Wireshark 4.0 does not know FLUSH (0x1C), ATOMIC_WRITE (0x1D) or the RoCEv2 CNP (0x81): for
 * those only the BTH is compared (their extension headers are checked against hand-assembled bytes in the header
 * and ICRC tests instead). Wireshark has no FECN and BECN fields: BTH byte 4 is compared whole, as the first
 * "infiniband.reserved" it shows.
 */
@Seeded
class TsharkDecodeTest
{
    private static final int PER_OPCODE = 30;
    private static final String[] PAYLOAD_DISSECTORS =
        {"smc", "smb_direct", "rpcordma", "nvme-rdma", "lnet", "iser", "infiniband_sdp", "fcoib", "infiniband.eoib"};
    private static final String[] FIELDS =
    {
        "frame.number", "vlan.id", "vlan.priority", "ip.src", "ip.dst", "ip.dsfield", "ip.ttl", "ip.id", "ipv6.src",
        "ipv6.dst", "ipv6.tclass", "ipv6.flow", "ipv6.hlim", "udp.srcport", "udp.dstport", "udp.length",
        "infiniband.bth.opcode", "infiniband.bth.se", "infiniband.bth.m", "infiniband.bth.padcnt",
        "infiniband.bth.tver", "infiniband.bth.p_key", "infiniband.bth.destqp", "infiniband.bth.a",
        "infiniband.bth.psn", "infiniband.reserved", "infiniband.reth.va", "infiniband.reth.r_key",
            "infiniband.reth.dmalen",
        "infiniband.aeth.syndrome", "infiniband.aeth.msn", "infiniband.atomiceth.swapdt", "infiniband.atomiceth.cmpdt",
        "infiniband.atomicacketh.origremdt", "infiniband.deth.q_key", "infiniband.deth.srcqp", "infiniband.immdt",
        "infiniband.ieth", "infiniband.payload", "data.data", "infiniband.invariant.crc",
    };

    @Test
    void tsharkReadsBackEveryFieldOfEveryFrame(final SeededRandom random, @TempDir final Path dir) throws Exception
    {
        final Path tshark = Tools.require("tshark");
        final Path pcap = dir.resolve("roce-wire-frames.pcap");
        final List<FrameFields> frames = OracleCapture.write(random, pcap, PER_OPCODE, new int[] {4, 6}, 64);
        final List<byte[]> payloads = payloads(pcap);

        final List<String> command = new ArrayList<>(List.of(tshark.toString(), "-n", "-r", pcap.toString()));
        for (final String dissector : PAYLOAD_DISSECTORS)
        {
            command.add("--disable-protocol");
            command.add(dissector);
        }
        // The InfiniBand dissector's own guess that a payload starting with a known EtherType is Ethernet.
        command.add("--disable-heuristic");
        command.add("eth_over_ib");
        command.addAll(List.of("-T", "fields", "-E", "separator=/t", "-E", "occurrence=f"));
        for (final String field : FIELDS)
        {
            command.add("-e");
            command.add(field);
        }
        final Tools.Result result = Tools.run(command, 600);
        assertEquals(0, result.exitCode(), () -> "tshark failed: " + result.stderr());

        final String[] lines = result.stdout().split("\n");
        assertEquals(frames.size(), lines.length, "one line per frame");
        int fieldsChecked = 0;
        for (int i = 0; i < frames.size(); i++)
        {
            final Map<String, String> decoded = decode(lines[i]);
            final FrameFields f = frames.get(i);
            final Checker c = new Checker(decoded, "frame " + (i + 1) + " " + f.opcode + " IPv" + f.ipVersion);
            c.number("frame.number", i + 1);
            if (f.vlan)
            {
                c.number("vlan.id", f.vlanId);
                c.number("vlan.priority", f.vlanPriority);
            }
            else
            {
                c.absent("vlan.id");
            }
            if (4 == f.ipVersion)
            {
                c.text("ip.src", Ipv4Header.addressToString(f.ipv4Source));
                c.text("ip.dst", Ipv4Header.addressToString(f.ipv4Destination));
                c.number("ip.dsfield", f.trafficClass);
                c.number("ip.ttl", f.hopLimit);
                c.number("ip.id", f.ipId);
            }
            else
            {
                c.ipv6("ipv6.src", f.ipv6SourceHigh, f.ipv6SourceLow);
                c.ipv6("ipv6.dst", f.ipv6DestinationHigh, f.ipv6DestinationLow);
                c.number("ipv6.tclass", f.trafficClass);
                c.number("ipv6.flow", f.flowLabel);
                c.number("ipv6.hlim", f.hopLimit);
            }
            c.number("udp.srcport", f.udpSourcePort);
            c.number("udp.dstport", 4791);
            c.number("infiniband.bth.opcode", f.opcode.code());
            c.flag("infiniband.bth.se", f.solicitedEvent);
            c.flag("infiniband.bth.m", f.migReq);
            c.number("infiniband.bth.padcnt", f.padCount);
            c.number("infiniband.bth.tver", 0);
            c.number("infiniband.bth.p_key", f.pkey);
            c.number("infiniband.bth.destqp", f.destQp);
            c.flag("infiniband.bth.a", f.ackReq);
            c.number("infiniband.bth.psn", f.psn);
            // Byte 4: FECN (0x80), BECN (0x40), Resv6a (0, as the builder writes it).
            c.text("infiniband.reserved", String.format("%02x", (f.fecn ? 0x80 : 0) | (f.becn ? 0x40 : 0)));
            if (!knownToWireshark40(f.opcode))
            {
                fieldsChecked += c.checked;
                continue;
            }
            final Opcode opcode = f.opcode;
            if (opcode.has(ExtHeader.RETH))
            {
                c.number("infiniband.reth.va", f.rethVa);
                c.number("infiniband.reth.r_key", f.rethRkey & 0xFFFF_FFFFL);
                c.number("infiniband.reth.dmalen", f.rethDmaLength);
            }
            else if (opcode.has(ExtHeader.ATOMIC_ETH))
            {
                // Wireshark shows the AtomicETH VA and R_Key under the RETH field names.
                c.number("infiniband.reth.va", f.atomicVa);
                c.number("infiniband.reth.r_key", f.atomicRkey & 0xFFFF_FFFFL);
                c.number("infiniband.atomiceth.swapdt", f.atomicSwapAdd);
                c.number("infiniband.atomiceth.cmpdt", f.atomicCompare);
            }
            else
            {
                c.absent("infiniband.reth.va");
            }
            if (opcode.has(ExtHeader.AETH))
            {
                c.number("infiniband.aeth.syndrome", f.aethSyndrome);
                c.number("infiniband.aeth.msn", f.aethMsn);
            }
            else
            {
                c.absent("infiniband.aeth.syndrome");
            }
            if (opcode.has(ExtHeader.ATOMIC_ACK_ETH))
            {
                c.number("infiniband.atomicacketh.origremdt", f.atomicOriginal);
            }
            if (opcode.has(ExtHeader.DETH))
            {
                c.number("infiniband.deth.q_key", f.qkey & 0xFFFF_FFFFL);
                c.number("infiniband.deth.srcqp", f.srcQp);
            }
            else
            {
                c.absent("infiniband.deth.q_key");
            }
            if (opcode.has(ExtHeader.IMM_DT))
            {
                c.text("infiniband.immdt", String.format("%08x", f.immediate));
            }
            else
            {
                c.absent("infiniband.immdt");
            }
            if (opcode.has(ExtHeader.IETH))
            {
                c.text("infiniband.ieth", String.format("%08x", f.iethRkey));
            }
            // Payload as tshark shows it: the data bytes followed by the pad bytes.
            final byte[] payload = payloads.get(i);
            final StringBuilder hex = new StringBuilder();
            for (final byte b : payload)
            {
                hex.append(String.format("%02x", b & 0xFF));
            }
            for (int p = 0; p < f.padCount; p++)
            {
                hex.append("00");
            }
            // SEND FIRST/MIDDLE payloads go to Wireshark's generic data dissector, the others stay InfiniBand's.
            c.text(decoded.get("infiniband.payload").isEmpty() ? "data.data" : "infiniband.payload", hex.toString());
            // Wireshark shows the ICRC as the four wire bytes read big-endian; roce-wire's value is little-endian.
            c.number("infiniband.invariant.crc", Integer.reverseBytes(f.icrc) & 0xFFFF_FFFFL);
            fieldsChecked += c.checked;
        }
        System.out.println("tshark decoded " + frames.size() + " frames; " + fieldsChecked + " field values checked");
        assertTrue(frames.size() >= 1000, "frames: " + frames.size());
    }

    private static boolean knownToWireshark40(final Opcode opcode)
    {
        return Opcode.RC_FLUSH != opcode && Opcode.RC_ATOMIC_WRITE != opcode && Opcode.CNP_NOTIFICATION != opcode;
    }

    private static Map<String, String> decode(final String line)
    {
        final String[] values = line.split("\t", -1);
        assertEquals(FIELDS.length, values.length, () -> "tshark line has the wrong number of fields: " + line);
        final Map<String, String> decoded = new HashMap<>();
        for (int i = 0; i < FIELDS.length; i++)
        {
            decoded.put(FIELDS[i], values[i]);
        }
        return decoded;
    }

    private static List<byte[]> payloads(final Path pcap) throws Exception
    {
        final List<byte[]> payloads = new ArrayList<>();
        final RoceFrameParser parser = new RoceFrameParser();
        try (PcapReader reader = PcapReader.open(pcap))
        {
            while (reader.next())
            {
                assertEquals(FrameStatus.OK, parser.parse(reader.buffer(), 0, reader.capturedLength(), true));
                final byte[] payload = new byte[parser.payloadLength()];
                reader.buffer().getBytes(parser.payloadOffset(), payload);
                payloads.add(payload);
            }
        }
        return payloads;
    }

    /** Compares tshark's text for one frame with the expected values, counting the comparisons. */
    private static final class Checker
    {
        private final Map<String, String> decoded;
        private final String frame;
        private int checked;

        Checker(final Map<String, String> decoded, final String frame)
        {
            this.decoded = decoded;
            this.frame = frame;
        }

        void number(final String field, final long expected)
        {
            final String text = decoded.get(field);
            assertTrue(null != text && !text.isEmpty(), () -> frame + ": tshark shows no " + field);
            final long actual = text.startsWith("0x") ?
                Long.parseUnsignedLong(text.substring(2), 16) : Long.parseUnsignedLong(text);
            assertEquals(expected, actual, () -> frame + ": " + field + " = '" + text + "'");
            checked++;
        }

        void flag(final String field, final boolean expected)
        {
            final String text = decoded.get(field);
            final boolean actual = "1".equals(text) || "True".equalsIgnoreCase(text);
            assertTrue(actual || "0".equals(text) || "False".equalsIgnoreCase(text),
                () -> frame + ": " + field + " is not a flag: '" + text + "'");
            assertEquals(expected, actual, () -> frame + ": " + field);
            checked++;
        }

        void text(final String field, final String expected)
        {
            assertEquals(expected, decoded.get(field), () -> frame + ": " + field);
            checked++;
        }

        void ipv6(final String field, final long high, final long low)
        {
            final String text = decoded.get(field);
            final byte[] address;
            try
            {
                // A literal address: no name lookup happens.
                address = InetAddress.getByName(text).getAddress();
            }
            catch (final UnknownHostException ex)
            {
                throw new AssertionError(frame + ": " + field + " is not an address: '" + text + "'", ex);
            }
            assertEquals(16, address.length, () -> frame + ": " + field + " = " + text);
            final ByteBuffer bytes = ByteBuffer.wrap(address);
            assertEquals(high, bytes.getLong(), () -> frame + ": " + field + " = " + text);
            assertEquals(low, bytes.getLong(), () -> frame + ": " + field + " = " + text);
            checked++;
        }

        void absent(final String field)
        {
            assertEquals("", decoded.get(field), () -> frame + ": unexpected " + field);
            checked++;
        }
    }
}
