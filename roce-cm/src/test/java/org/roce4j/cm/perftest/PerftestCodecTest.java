package org.roce4j.cm.perftest;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.roce4j.cm.oob.OobProtocolException;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The codecs of perftest's exchange against the bytes two perftest 4.5+0.17 tools sent each other.
 */
class PerftestCodecTest
{
    @Test
    void decodesTheCapturedVersionAndEncodesItByteForByte() throws Exception
    {
        final byte[] captured = CapturedExchange.load("write_bw").messages().get(0).bytes();
        assertEquals("6.06", PerftestVersion.decode(captured));
        assertArrayEquals(captured, PerftestVersion.encode(PerftestVersion.LOCAL));
        assertEquals(6.06, PerftestVersion.checkCompatible("6.06"));
        assertEquals(5.70, PerftestVersion.checkCompatible("5.70"));
        assertEquals(6.27, PerftestVersion.checkCompatible("6.27"));
        // From 6.28 the peer adds the parameter negotiation only when roce4j announces 6.28 or later too.
        assertEquals(6.29, PerftestVersion.checkCompatible("6.29"));
        assertEquals(26.01, PerftestVersion.checkCompatible("26.01"));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "5.60  | 5.60 is older than 5.70",
        "4.5   | 4.5 is older than 5.70",
        "6.x   | unrecognised perftest version '6.x'",
        "six   | unrecognised perftest version 'six'"})
    void refusesVersionsItDoesNotSpeakNamingThem(final String version, final String expected) throws Exception
    {
        final PerftestVersionException ex = assertThrows(PerftestVersionException.class,
            () -> PerftestVersion.checkCompatible(PerftestVersion.decode(PerftestVersion.encode(version))));
        assertTrue(ex.getMessage().contains(expected), ex.getMessage());
    }

    @Test
    void aVersionFieldWithoutTextOrNulIsNamedAsSuch()
    {
        final byte[] noNul = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
        assertTrue(assertThrows(PerftestVersionException.class, () -> PerftestVersion.decode(noNul)).getMessage()
            .contains("no perftest version string"));
        final byte[] binary = new byte[16];
        binary[0] = 0x01;
        assertTrue(assertThrows(PerftestVersionException.class, () -> PerftestVersion.decode(binary)).getMessage()
            .contains("no perftest version string"));
        assertTrue(assertThrows(PerftestVersionException.class, () -> PerftestVersion.decode(new byte[4]))
            .getMessage().contains("16 bytes"));
        assertThrows(IllegalArgumentException.class, () -> PerftestVersion.encode("0123456789abcdef"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"write_bw", "read_bw", "atomic_bw_cmp_and_swap", "atomic_bw_fetch_and_add", "send_bw",
        "send_lat"})
    void everyCapturedQpRecordRoundTripsByteForByte(final String tool) throws Exception
    {
        final CapturedExchange exchange = CapturedExchange.load(tool);
        int records = 0;
        for (final boolean client : new boolean[] {true, false})
        {
            for (final byte[] record : exchange.of(client, PerftestKeyMessage.LENGTH_GID))
            {
                final PerftestDest dest = PerftestKeyMessage.decode(record, true);
                assertArrayEquals(record, PerftestKeyMessage.encode(dest, true), tool);
                assertTrue(dest.isIpv4MappedGid(), dest.toString());
                records++;
            }
        }
        assertTrue(records >= 8, tool + ": " + records + " records");
    }

    @Test
    void decodesEachFieldOfACapturedRecord() throws Exception
    {
        // ib_read_bw's client: out_reads 0x80 (rxe's max_qp_rd_atom), its buffer's rkey and vaddr, GID
        // ::ffff:10.77.0.2.
        final byte[] record = CapturedExchange.load("read_bw").of(true, PerftestKeyMessage.LENGTH_GID).get(0);
        final PerftestDest dest = PerftestKeyMessage.decode(record, true);
        assertEquals(new PerftestDest(0, 0x80, 0x18, 0x43371c, 0xf5d, 0x0000_5637_7e45_b000L, 0,
            0x0000_FFFF_0A4D_0002L, 0), dest);
        assertEquals(0x18, dest.toQpInfo().qpn());
        assertEquals(0x0000_5637_7e45_b000L, dest.toQpInfo().vaddr());
    }

    @Test
    void encodesTheRecordWithoutGidIn59Bytes() throws Exception
    {
        final PerftestDest dest = new PerftestDest(0x1f, 1, 0x1234, 0xabcdef, 0x99, 0x7f00_0000_1000L, 0, 0, 7);
        final byte[] bytes = PerftestKeyMessage.encode(dest, false);
        assertEquals(59, bytes.length);
        assertEquals("001f:0001:001234:abcdef:00000099:00007f0000001000:00000007",
            new String(bytes, 0, 58, StandardCharsets.US_ASCII));
        assertEquals(0, bytes[58]);
        assertEquals(new PerftestDest(0x1f, 1, 0x1234, 0xabcdef, 0x99, 0x7f00_0000_1000L, 0, 0, 7),
            PerftestKeyMessage.decode(bytes, false));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "0000:0001:000016:6168ea:00000000:000055fb8063d000:00:00:00:00:00:00:00:00:00:00:ff:ff:0a:4d:00:02:00000000 " +
            "| must be lid:out_reads",
        "0000:0001:0000zz:6168ea:00000000:000055fb8063d000:00:00:00:00:00:00:00:00:00:00:ff:ff:0a:4d:00:02:00000000: " +
            "| QPN is not hex",
        "0000:0001:000016:6168ea:00000000:000055fb8063d000:00:00:00:00:00:00:00:00:00:00:ff:ff:0a:4d:00:002:0000000: " +
            "| GID byte 15 must be 1..2 hex digits",
        "0000:0001:1000016:68ea:00000000:000055fb8063d000:00:00:00:00:00:00:00:00:00:00:ff:ff:0a:4d:00:02:00000000: " +
            "| QPN must be 1..6 hex digits",
        "0000:0001:000016:6168ea:00000000:000055fb8063d000:00:00:00:00:00:00:00:00:00:00:ff:ff:0a:4d:00:02::00000000 " +
            "| must be lid:out_reads",
        "0000:0001:000016:6168ea:00000000::00:00:00:00:00:00:00:00:00:00:ff:ff:0a:4d:00:02:00000000: " +
            "| vaddr must be 1..16 hex digits"})
    void rejectsMalformedRecordsNamingTheProblem(final String text, final String expected)
    {
        final byte[] bytes = new byte[PerftestKeyMessage.LENGTH_GID];
        final byte[] ascii = text.trim().getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(ascii, 0, bytes, 0, Math.min(ascii.length, bytes.length - 1));
        final OobProtocolException ex = assertThrows(OobProtocolException.class,
            () -> PerftestKeyMessage.decode(bytes, true));
        assertTrue(ex.getMessage().contains(expected.trim()), ex.getMessage());
    }

    @Test
    void rejectsRecordsOfTheWrongSizeOrWithoutNul() throws Exception
    {
        final byte[] good = CapturedExchange.load("write_bw").of(true, PerftestKeyMessage.LENGTH_GID).get(0);
        assertTrue(assertThrows(OobProtocolException.class, () -> PerftestKeyMessage.decode(good, false))
            .getMessage().contains("59 bytes, got 108"));
        final byte[] noNul = good.clone();
        noNul[107] = ' ';
        assertTrue(assertThrows(OobProtocolException.class, () -> PerftestKeyMessage.decode(noNul, true))
            .getMessage().contains("not NUL-terminated"));
        final byte[] withGidAsShort = new byte[59];
        System.arraycopy(good, 0, withGidAsShort, 0, 58);
        assertTrue(assertThrows(OobProtocolException.class, () -> PerftestKeyMessage.decode(withGidAsShort, false))
            .getMessage().contains("does the peer use a GID"));
    }

    @Test
    void decodesTheCapturedClientReportAndEncodesItBack() throws Exception
    {
        // ib_write_bw -s 2048 -n 5: the client's five 8-byte fields after the run.
        final List<byte[]> fields = CapturedExchange.load("write_bw").of(true, PerftestReport.FIELD_BYTES);
        assertEquals(PerftestReport.FIELDS, fields.size());
        final PerftestReport report = PerftestReport.fromFields(fields.toArray(new byte[0][]));
        assertEquals(2048, report.size());
        assertEquals(5, report.iterations());
        assertTrue(report.bwPeak() > 3.0 && report.bwPeak() < 3.1, "peak " + report.bwPeak());
        assertTrue(report.bwAvg() > 0 && report.bwAvg() <= report.bwPeak(), "average " + report.bwAvg());
        assertEquals(report.bwAvg() * 1024 * 1024 / 2048 / 1e6, report.msgRate(), 1e-9);
        for (int i = 0; i < PerftestReport.FIELDS; i++)
        {
            assertArrayEquals(fields.get(i), report.field(i), "field " + i);
        }
    }

    @Test
    void theServersUninitialisedReportBytesSurviveARoundTrip() throws Exception
    {
        // perftest's one-way server sends stack garbage; roce4j must still read and re-send such bytes exactly.
        final List<byte[]> fields = CapturedExchange.load("atomic_bw_fetch_and_add").of(false,
            PerftestReport.FIELD_BYTES);
        final PerftestReport report = PerftestReport.fromFields(fields.toArray(new byte[0][]));
        for (int i = 0; i < PerftestReport.FIELDS; i++)
        {
            assertArrayEquals(fields.get(i), report.field(i), "field " + i);
        }
        assertThrows(IllegalArgumentException.class, () -> PerftestReport.fromFields(new byte[4][8]));
        assertThrows(IllegalArgumentException.class, () -> report.field(5));
    }
}
