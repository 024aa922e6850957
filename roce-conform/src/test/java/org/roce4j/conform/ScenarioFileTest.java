package org.roce4j.conform;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.roce4j.conform.dut.SelfDut;
import org.roce4j.conform.file.ScenarioFile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Scenario files in YAML: the examples PASS against roce4j, a file with a wrong expectation FAILs, and malformed
 * files are refused with the file, the step and the problem named.
 */
class ScenarioFileTest
{
    private static final Path DIR = Path.of("src", "test", "resources", "scenarios");

    private static ScenarioResult run(final Scenario scenario)
    {
        return new ScenarioRunner(() -> SelfDut.testbed(link -> link), PeerProfile.NONE).run(scenario);
    }

    @Test
    void exampleFilesPassAgainstRoce4j() throws Exception
    {
        for (final String file : new String[] {"psn-sequence-error.yaml", "bad-icrc.yaml", "lost-ack.yaml",
            "ce-marked-cnp.yaml"})
        {
            final Scenario scenario = ScenarioFile.load(DIR.resolve(file));
            final ScenarioResult result = run(scenario);
            assertEquals(Verdict.PASS, result.verdict(), file + ": " + result.reason() + " " +
                SelfCatalogueTest.labels(result.capture()));
        }
        final Scenario lostAck = ScenarioFile.load(DIR.resolve("lost-ack.yaml"));
        assertEquals(Side.REQUESTER, lostAck.side());
        assertEquals("9.7.6.1.3", lostAck.rule().section());
        assertFalse(lostAck.rule().verified());
        assertTrue(ScenarioFile.load(DIR.resolve("ce-marked-cnp.yaml")).rule().verifiedBy().startsWith("NVIDIA"));
        assertEquals(8, lostAck.steps().size());
        assertEquals("dropped", run(lostAck).capture().frames().get(1).fault());
    }

    @Test
    void wrongExpectationInAFileFails() throws Exception
    {
        final Scenario wrong = ScenarioFile.parse(String.join("\n",
            "name: responder.wrong-file",
            "side: responder",
            "rule: {section: none, paraphrase: a good WRITE is NAKed (false on purpose)}",
            "steps:",
            "  - connect: rc",
            "  - send: {opcode: RC_RDMA_WRITE_ONLY, psn: 0, payload: 8, ack_req: true, reth: {}}",
            "  - expect: {nak: INVALID_REQUEST, within_us: 1000}"));

        final ScenarioResult result = run(wrong);

        assertEquals(Verdict.FAIL, result.verdict());
        assertTrue(result.reason().startsWith("expected NAK INVALID_REQUEST within 1000.0 us; the DUT sent " +
            "[RC_ACKNOWLEDGE"), result.reason());
    }

    @Test
    void malformedFilesAreRefusedWithTheStepAndTheProblem()
    {
        final String head = "name: responder.bad\nside: responder\nrule: {section: x, paraphrase: y}\nsteps:\n";

        final IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
            () -> ScenarioFile.parse(head + "  - connect: rc\n  - teleport: {}\n"));
        final IllegalArgumentException noReth = assertThrows(IllegalArgumentException.class,
            () -> ScenarioFile.parse(head + "  - send: {opcode: RC_RDMA_WRITE_ONLY, psn: 0}\n"));
        final IllegalArgumentException badRkey = assertThrows(IllegalArgumentException.class,
            () -> ScenarioFile.parse(head + "  - send: {opcode: RC_RDMA_WRITE_ONLY, reth: {rkey: mine}}\n"));
        final IllegalArgumentException noRule = assertThrows(IllegalArgumentException.class,
            () -> ScenarioFile.parse("name: responder.bad\nside: responder\nsteps: []\n"));

        assertTrue(unknown.getMessage().startsWith("step 2 ({\"teleport\":{}}): unknown step 'teleport'"),
            unknown.getMessage());
        assertTrue(noReth.getMessage().endsWith("RC_RDMA_WRITE_ONLY needs a reth: {va_offset, rkey, dma_length}"),
            noReth.getMessage());
        assertTrue(badRkey.getMessage().endsWith("rkey is region, flipped or restricted, not 'mine'"),
            badRkey.getMessage());
        assertEquals("missing 'rule'", noRule.getMessage());
    }
}
