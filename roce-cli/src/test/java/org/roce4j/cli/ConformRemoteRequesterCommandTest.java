package org.roce4j.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.roce4j.cli.ConformRemoteCommandTest.hasRow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code roce conform --suite requester --link udp:... --listen PORT SERVER} end to end with no rxe: the DUT as
 * requester is roce4j itself, {@code roce perf write_bw}, {@code read_bw} and {@code send_bw} as clients in loops in
 * this JVM ({@code -s 64 -n 5 -t 1}, standing in for {@code while :; do ib_write_bw ... ROCE4J_IP; done} and the
 * others), each on its own loopback address over the kernel's UDP, connecting to the conform run's listeners; the
 * conform peer, perftest's server side for each scenario, answers their requests as a misbehaving responder.
 */
class ConformRemoteRequesterCommandTest
{
    private static final String WRITE_DUT_IP = "127.0.79.1";
    private static final String PEER_IP = "127.0.79.2";
    private static final String READ_DUT_IP = "127.0.79.3";
    private static final String SEND_DUT_IP = "127.0.79.4";
    private static final String WRITE_4_MTU_DUT_IP = "127.0.79.5";
    private static final String WRITE_100_MTU_DUT_IP = "127.0.79.6";
    private static final String READ_2_DUT_IP = "127.0.79.7";
    /** How long each perf client waits for the conform run's listener (ms): its loop starts the next one. */
    private static final String CLIENT_TIMEOUT_MS = "10000";

    @Test
    void requesterSuiteThroughClientLoopsGivesVerdictsAndTheExitCode(@TempDir final Path dir) throws Exception
    {
        // PORT .. PORT + 5: one listener per client loop.
        final int listen = Cli.freeTcpPortBlock(6);
        final List<String> clientErrors = Collections.synchronizedList(new ArrayList<>());
        final Cli.Result result;
        try (PerfLoop write = client(clientErrors, "write_bw", WRITE_DUT_IP, listen);
            PerfLoop read = client(clientErrors, "read_bw", READ_DUT_IP, listen + 1);
            PerfLoop send = client(clientErrors, "send_bw", SEND_DUT_IP, listen + 2);
            PerfLoop write4Mtu = mtu1024Client(clientErrors, WRITE_4_MTU_DUT_IP, "4096", listen + 3);
            PerfLoop write100Mtu = mtu1024Client(clientErrors, WRITE_100_MTU_DUT_IP, "102400", listen + 4);
            PerfLoop read2 = new PerfLoop(clientErrors, null, "perf", "read_bw", "--link", "udp:" + READ_2_DUT_IP,
                "-s", "64", "-n", "5", "-t", "2", "-p", Integer.toString(listen + 5), "--timeout", CLIENT_TIMEOUT_MS,
                PEER_IP))
        {
            // --listen PORT: ib_write_bw's loop connects to PORT, ib_read_bw's to PORT + 1, ib_send_bw's to PORT + 2,
            // ib_write_bw -s 4096's to PORT + 3, ib_write_bw -s 102400's to PORT + 4, ib_read_bw -t 2's to PORT + 5.
            assertEquals(List.of(write.port() + 1, write.port() + 2, write.port() + 3, write.port() + 4,
                write.port() + 5), List.of(read.port(), send.port(), write4Mtu.port(), write100Mtu.port(),
                read2.port()));
            // The whole suite, duplicate-ack-harmless first: in a cold JVM the first WRITE of the first scenario is
            // captured tens of ms after the stand-in DUT sent it, which would make lost-ack-retransmit's first
            // retransmission look early (seen in this test only; a warm run times it right).
            result = Cli.run("conform", "--scenario", "requester.duplicate-ack-harmless",
                "requester.lost-ack-retransmit", "requester.late-ack-after-retransmit",
                "requester.nak-sequence-go-back-n", "requester.rnr-nak-wait-retry", "requester.ghost-ack-ignored",
                "requester.read-response-placed", "requester.read-response-too-long", "requester.implied-nak-read",
                "requester.retry-exhausted", "requester.read-response-wrong-opcode", "requester.ackreq-cadence",
                "--link", "udp:" + PEER_IP, "--listen",
                Integer.toString(write.port()), "--dut-device", "roce4j", "--dut-wait", "1000", "--report",
                dir.toString(), WRITE_DUT_IP);
        }
        final String out = result.out();
        final String why = out + result.err() + "\nclients: " + clientErrors;
        assertEquals(0, result.exitCode(), why);
        assertTrue(out.contains("while :; do ib_write_bw -d roce4j -x 1 -p " + listen + " -s 64 -n 5 -t 1 " + PEER_IP +
            "; done"), out);
        assertTrue(out.contains("while :; do ib_read_bw -d roce4j -x 1 -p " + (listen + 1) + " -s 64 -n 5 -t 1 " +
            PEER_IP + "; done"), out);
        assertTrue(out.contains("while :; do ib_send_bw -d roce4j -x 1 -p " + (listen + 2) + " -s 64 -n 5 -t 1 " +
            PEER_IP + "; done"), out);
        assertTrue(hasRow(out, "requester.lost-ack-retransmit", "PASS", ""), why);
        assertTrue(hasRow(out, "requester.late-ack-after-retransmit", "PASS",
            "not checked: one completion of wr_id 1, needs the DUT's completions"), why);
        assertTrue(hasRow(out, "requester.rnr-nak-wait-retry", "PASS", ""), why);
        assertTrue(hasRow(out, "requester.ghost-ack-ignored", "PASS", ""), why);
        assertTrue(hasRow(out, "requester.duplicate-ack-harmless", "PASS", ""), why);
        assertTrue(hasRow(out, "requester.read-response-too-long", "PASS",
            "not checked: the READ's completion status"), why);
        assertTrue(hasRow(out, "requester.read-response-wrong-opcode", "PASS",
            "not checked: the READ's completion status"), why);
        assertTrue(hasRow(out, "requester.retry-exhausted", "PASS", "not checked: the WRITE's completion status"),
            why);
        assertTrue(hasRow(out, "requester.nak-sequence-go-back-n", "PASS", ""), why);
        assertTrue(hasRow(out, "requester.implied-nak-read", "PASS", ""), why);
        assertTrue(hasRow(out, "requester.read-response-placed", "SKIP", "the DUT as requester: a READ of 2 path MTUs"),
            why);
        assertTrue(out.contains("while :; do ib_read_bw -d roce4j -x 1 -p " + (listen + 5) + " -s 64 -n 5 -t 2 " +
            PEER_IP + "; done"), out);
        assertTrue(out.contains("while :; do ib_write_bw -d roce4j -x 1 -p " + (listen + 3) + " -s 4096 -n 5 -t 1 " +
            PEER_IP + "; done"), out);
        assertTrue(out.contains("while :; do ib_write_bw -d roce4j -x 1 -p " + (listen + 4) + " -s 102400 -n 5 -t 1 " +
            PEER_IP + "; done"), out);
        assertTrue(hasRow(out, "requester.ackreq-cadence", "PASS", ""), why);
        assertTrue(out.contains("12 scenarios: 11 PASS, 0 FAIL, 0 DEVIATION, 1 SKIP; 4 parts not checked"), why);

        final JsonNode json = new ObjectMapper().readTree(dir.resolve("report.json").toFile());
        final String findings = json.toString();
        assertTrue(findings.contains("closed its exchange before its run's end"), "the QP state's substitute");
        assertTrue(findings.contains("shows wr_id 1 completed with SUCCESS"), "the completion's substitute");
        assertTrue(findings.contains("the ghost ACK acknowledged nothing"), "the ghost ACK's substitute");
    }

    /**
     * A write_bw client loop of {@code size} bytes at the guest's path MTU, 1024 (-m): the loopback pair would agree
     * on 4096, and its scenario needs several packets per message.
     */
    private static PerfLoop mtu1024Client(final List<String> errors, final String ip, final String size, final int port)
    {
        return new PerfLoop(errors, null, "perf", "write_bw", "--link", "udp:" + ip, "-s", size, "-m", "1024", "-n",
            "5", "-t", "1", "-p", Integer.toString(port), "--timeout", CLIENT_TIMEOUT_MS, PEER_IP);
    }

    private static PerfLoop client(final List<String> errors, final String test, final String ip, final int port)
    {
        return new PerfLoop(errors, null, "perf", test, "--link", "udp:" + ip, "-s", "64", "-n", "5", "-t", "1",
            "-p", Integer.toString(port), "--timeout", CLIENT_TIMEOUT_MS, PEER_IP);
    }
}
