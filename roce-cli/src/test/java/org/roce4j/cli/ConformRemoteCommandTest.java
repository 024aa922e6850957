package org.roce4j.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.regex.Pattern;

import javax.xml.parsers.DocumentBuilderFactory;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roce4j.wire.pcap.PcapReader;
import org.w3c.dom.Element;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code roce conform --link udp:... -p PORT SERVER} end to end with no rxe: the DUT is roce4j itself behind its
 * stock-tool exchange, {@code roce perf write_bw} and {@code roce perf send_bw -s 64} as servers in loops in this JVM
 * (standing in for {@code while :; do ib_write_bw ...; done} and ib_send_bw's), each on its own loopback address over
 * the kernel's UDP; the conform peer on a third address. The table, the exit code and the report files are the CLI's
 * own.
 */
class ConformRemoteCommandTest
{
    private static final String DUT_IP = "127.0.78.1";
    private static final String SEND_DUT_IP = "127.0.78.3";
    private static final String PEER_IP = "127.0.78.2";
    /** How long each perf server waits for its client (ms): the loop starts the next one. */
    private static final String PERF_TIMEOUT_MS = "20000";

    @Test
    void remoteDutThroughTheCliGivesTheTableTheExitCodeAndTheReports(@TempDir final Path dir) throws Exception
    {
        // PORT .. PORT + 4: the server loops the responder suite connects to.
        final int port = Cli.freeTcpPortBlock(5);
        final List<String> serverErrors = Collections.synchronizedList(new ArrayList<>());
        try (PerfLoop write = new PerfLoop(serverErrors, DUT_IP, "perf", "write_bw", "--link", "udp:" + DUT_IP, "-p",
            Integer.toString(port), "--timeout", PERF_TIMEOUT_MS);
            PerfLoop send = new PerfLoop(serverErrors, DUT_IP, "perf", "send_bw", "--link", "udp:" + SEND_DUT_IP, "-s",
                "64", "-p", Integer.toString(port + 2), "--timeout", PERF_TIMEOUT_MS))
        {
            // ib_send_bw's loop is on PORT + 2 of the same server: its perf listens on every address, so the conform
            // peer reaches it at DUT_IP's port and its RoCE frames go to SEND_DUT_IP, the GID its record names.
            final Cli.Result result = Cli.run("conform", "--link", "udp:" + PEER_IP, "-p",
                Integer.toString(write.port()),
                "--dut-device", "roce4j", "--dut-wait", "1000", "--report", dir.toString(), DUT_IP, "--scenario",
                "responder.invalid-rkey", "responder.psn-sequence-error", "responder.duplicate-send",
                "requester.read-response-placed");

            final String out = result.out();
            assertEquals(0, result.exitCode(), out + result.err() + "\nservers: " + serverErrors);
            assertTrue(out.contains("while :; do ib_write_bw -d roce4j -x 1 -p " + port + "; done"), out);
            assertTrue(out.contains("while :; do ib_send_bw -d roce4j -x 1 -p " + send.port() + " -s 64; done"), out);
            assertTrue(hasRow(out, "responder.invalid-rkey", "PASS", ""), out);
            assertTrue(hasRow(out, "responder.psn-sequence-error", "PASS",
                "not checked: payload, needs reading the DUT's memory"), out);
            assertTrue(hasRow(out, "responder.duplicate-send", "PASS",
                "not checked: the receive's completion, needs the DUT's completions"), out);
            assertTrue(hasRow(out, "requester.read-response-placed", "SKIP",
                "the DUT as requester: a READ of 2 path MTUs"), out);
            assertTrue(out.contains("4 scenarios: 3 PASS, 0 FAIL, 0 DEVIATION, 1 SKIP; 3 parts not checked"), out);

            final JsonNode json = new ObjectMapper().readTree(dir.resolve("report.json").toFile());
            assertEquals(3, json.get("counts").get("PASS").asInt());
            assertEquals(1, json.get("counts").get("SKIP").asInt());
            assertEquals(3, json.get("counts").get("NOT_CHECKED").asInt());
            assertEquals("payload, needs reading the DUT's memory: ib_write_bw does not show it, and its region has " +
                "no remote read right to read it back with", json.get("scenarios").get(1).get("notChecked").get(0)
                .asText());
            final Element suite = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(dir.resolve("junit.xml").toFile()).getDocumentElement();
            assertEquals("4", suite.getAttribute("tests"));
            assertEquals("0", suite.getAttribute("failures"));
            assertEquals("1", suite.getAttribute("skipped"));
            final Element property = (Element)suite.getElementsByTagName("property").item(0);
            assertEquals("notChecked", property.getAttribute("name"));
            assertEquals("3", property.getAttribute("value"));
            assertTrue(suite.getElementsByTagName("system-out").item(0).getTextContent()
                .startsWith("not checked: payload"), "the first PASS with a part not checked names it");
            final String md = Files.readString(dir.resolve("report.md"));
            assertTrue(md.contains("| **PASS** | not checked: payload, needs reading the DUT's memory"), md);
            assertTrue(Files.readString(dir.resolve("index.html")).contains("not checked: payload"));
            final JsonNode duplicateSend = json.get("scenarios").get(2);
            int frames = 0;
            try (PcapReader pcap = PcapReader.open(dir.resolve("pcap").resolve("responder.duplicate-send.pcap")))
            {
                while (pcap.next())
                {
                    frames++;
                }
            }
            assertEquals(duplicateSend.get("frames").size(), frames, "responder.duplicate-send's pcap");
            // The SEND, its ACK, the duplicate, its re-ACK (and an RNR NAK and the SEND again, when the receives were
            // not taken up yet); the SEND longer than the receives that ends ib_send_bw's run is no part of it.
            assertTrue(frames >= 4, "responder.duplicate-send's frames: " + frames);
            for (final JsonNode frame : duplicateSend.get("frames"))
            {
                assertTrue(frame.get("payloadLength").asInt() <= 64, frame.toString());
            }
        }
    }

    /**
     * Whether the table has the scenario's row with that verdict and a reason that starts so.
     *
     * @param out     what the run printed.
     * @param name    the scenario.
     * @param verdict its verdict.
     * @param reason  the start of its reason.
     * @return true when the row is there.
     */
    static boolean hasRow(final String out, final String name, final String verdict, final String reason)
    {
        return Pattern.compile("^" + Pattern.quote(name) + " .* " + verdict + " +" + Pattern.quote(reason),
            Pattern.MULTILINE).matcher(out).find();
    }
}
