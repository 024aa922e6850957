package org.roce4j.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import javax.xml.parsers.DocumentBuilderFactory;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roce4j.conform.Checks;
import org.roce4j.conform.PeerProfile;
import org.roce4j.conform.Scenario;
import org.roce4j.conform.ScenarioResult;
import org.roce4j.conform.ScenarioRunner;
import org.roce4j.conform.Side;
import org.roce4j.conform.Steps;
import org.roce4j.conform.Verdict;
import org.roce4j.conform.catalogue.Catalogue;
import org.roce4j.conform.dut.SelfDut;
import org.roce4j.wire.pcap.PcapReader;
import org.w3c.dom.Element;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code roce conform}: the catalogue, --self with its table and reports, the exit codes.
 */
class ConformCommandTest
{
    @Test
    void listPrintsTheWholeCatalogue()
    {
        final Cli.Result result = Cli.run("conform", "--list");

        assertEquals(0, result.exitCode(), result.err());
        assertEquals(Catalogue.all().size() + " scenarios", result.lastOutLine());
        assertEquals(Catalogue.all().size() + 1, result.outLines().size());
        assertTrue(result.out().contains("responder.psn-sequence-error"), result.out());
        assertTrue(result.out().contains("requester.lost-ack-retransmit"), result.out());
        assertTrue(result.out().contains("congestion.ce-marked-gets-cnp                congestion A17.9.3*"),
            result.out());
        assertTrue(result.out().contains("responder.reads-beyond-resources             responder  9.4.4 / 9.9.3 "),
            result.out());
    }

    @Test
    void selfRunsTheWholeCatalogueEveryScenarioPassesAndTheReportsAgree(@TempDir final Path dir) throws Exception
    {
        final Cli.Result result = Cli.run("conform", "--self", "--report", dir.toString());

        assertEquals(0, result.exitCode(), result.out() + result.err());
        final int n = Catalogue.all().size();
        assertTrue(result.out().contains(n + " scenarios: " + n + " PASS, 0 FAIL, 0 DEVIATION, 0 SKIP"),
            result.out());
        for (final Scenario scenario : Catalogue.all())
        {
            assertTrue(result.out().matches("(?s).*\\n" + scenario.name().replace(".", "\\.") + " .* PASS .*"),
                scenario.name() + " in\n" + result.out());
        }

        final JsonNode json = new ObjectMapper().readTree(dir.resolve("report.json").toFile());
        assertEquals(n, json.get("counts").get("PASS").asInt());
        assertEquals(n, json.get("scenarios").size());
        final Element suite = DocumentBuilderFactory.newInstance().newDocumentBuilder()
            .parse(dir.resolve("junit.xml").toFile()).getDocumentElement();
        assertEquals(Integer.toString(n), suite.getAttribute("tests"));
        assertEquals("0", suite.getAttribute("failures"));
        assertEquals(n, suite.getElementsByTagName("testcase").getLength());
        assertTrue(Files.readString(dir.resolve("report.md")).contains("| `responder.bad-icrc-dropped` | responder"));
        for (final JsonNode scenario : json.get("scenarios"))
        {
            int frames = 0;
            try (PcapReader pcap = PcapReader.open(dir.resolve("pcap").resolve(scenario.get("name").asText() +
                ".pcap")))
            {
                while (pcap.next())
                {
                    frames++;
                }
            }
            assertEquals(scenario.get("frames").size(), frames, scenario.get("name").asText());
            assertTrue(frames > 0, scenario.get("name").asText());
        }
    }

    @Test
    void suiteAndScenarioSelect()
    {
        final Cli.Result requester = Cli.run("conform", "--self", "--suite", "requester");
        final Cli.Result two = Cli.run("conform", "--self", "--scenario", "responder.invalid-rkey",
            "congestion.cnp-harmless");

        assertEquals(0, requester.exitCode(), requester.out());
        final int n = Catalogue.suite(Side.REQUESTER).size();
        assertTrue(requester.out().contains(n + " scenarios: " + n + " PASS"), requester.out());
        assertEquals(0, two.exitCode(), two.out());
        assertTrue(two.out().contains("2 scenarios: 2 PASS"), two.out());
    }

    @Test
    void fileRunsTheScenariosOfYamlFiles(@TempDir final Path dir) throws Exception
    {
        final Path good = dir.resolve("good.yaml");
        Files.writeString(good, String.join("\n",
            "name: responder.zero-length-file",
            "side: responder",
            "rule: {section: C9-88, paraphrase: a zero-length WRITE needs no valid R_Key}",
            "steps:",
            "  - connect: rc",
            "  - send: {opcode: RC_RDMA_WRITE_ONLY, psn: 0, ack_req: true, reth: {rkey: flipped, dma_length: 0}}",
            "  - expect: {ack: true, psn: 0, within_us: 1000}", ""));
        final Path wrong = dir.resolve("wrong.yaml");
        Files.writeString(wrong, Files.readString(good).replace("zero-length-file", "wrong-file")
            .replace("{ack: true", "{nak: INVALID_REQUEST"));
        final Path broken = dir.resolve("broken.yaml");
        Files.writeString(broken, "name: responder.broken\nside: responder\n");

        final Cli.Result pass = Cli.run("conform", "--self", "--file", good.toString());
        final Cli.Result fail = Cli.run("conform", "--self", "--file", good.toString(), wrong.toString());
        final Cli.Result usage = Cli.run("conform", "--self", "--file", broken.toString());

        assertEquals(0, pass.exitCode(), pass.out() + pass.err());
        assertTrue(pass.out().contains("1 scenarios: 1 PASS"), pass.out());
        assertEquals(ConformCommand.EXIT_FAIL, fail.exitCode(), fail.out());
        assertTrue(fail.out().contains("2 scenarios: 1 PASS, 1 FAIL"), fail.out());
        assertEquals(ConformCommand.EXIT_USAGE, usage.exitCode());
        assertTrue(usage.err().contains(broken + ": missing 'rule'"), usage.err());
    }

    @Test
    void anyFailMakesExitCodeOne()
    {
        final Scenario failing = Scenario.builder("responder.always-fails").side(Side.RESPONDER)
            .rule("none", "stand-in that fails")
            .steps(Steps.verify("fails", ctx -> Checks.that(false, "on purpose")))
            .build();
        final ScenarioRunner runner = new ScenarioRunner(() -> SelfDut.testbed(link -> link), PeerProfile.NONE);
        final ScenarioResult pass = runner.run(Catalogue.named("responder.invalid-rkey"));
        final ScenarioResult fail = runner.run(failing);

        assertEquals(Verdict.PASS, pass.verdict());
        assertEquals(0, ConformCommand.exitCode(List.of(pass)));
        assertEquals(ConformCommand.EXIT_FAIL, ConformCommand.exitCode(List.of(pass, fail)));
    }

    @Test
    void aRemoteDutNeedsALinkAndAServer()
    {
        final Cli.Result neither = Cli.run("conform");
        final Cli.Result both = Cli.run("conform", "--self", "--link", "tunnel:127.0.0.1:0:127.0.0.1:9,ip=10.9.0.1",
            "127.0.0.1");
        final Cli.Result noServer = Cli.run("conform", "--link", "tunnel:127.0.0.1:0:127.0.0.1:9,ip=10.9.0.1");

        assertEquals(ConformCommand.EXIT_USAGE, neither.exitCode());
        assertTrue(neither.err().contains("give either --self or --link SPEC SERVER"), neither.err());
        assertEquals(ConformCommand.EXIT_USAGE, both.exitCode());
        assertEquals(ConformCommand.EXIT_USAGE, noServer.exitCode());
        assertTrue(noServer.err().contains("a remote DUT needs both --link SPEC and SERVER"), noServer.err());
        assertTrue(Cli.run("conform", "--help").out().contains("perftest"));
    }

    @Test
    void unknownNamesAreUsageErrors()
    {
        final Cli.Result scenario = Cli.run("conform", "--self", "--scenario", "responder.nope");
        final Cli.Result profile = Cli.run("conform", "--self", "--profile", "nic9000");
        final Cli.Result suite = Cli.run("conform", "--self", "--suite", "sideways");

        assertEquals(ConformCommand.EXIT_USAGE, scenario.exitCode());
        assertTrue(scenario.err().contains("no scenario named 'responder.nope'"), scenario.err());
        assertEquals(ConformCommand.EXIT_USAGE, profile.exitCode());
        assertTrue(profile.err().contains("use none, rxe or connectx"), profile.err());
        assertEquals(ConformCommand.EXIT_USAGE, suite.exitCode());
        assertTrue(suite.err().contains("unknown suite 'sideways'"), suite.err());
    }
}
