package org.roce4j.conform.file;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import org.roce4j.conform.Checkers;
import org.roce4j.conform.Checks;
import org.roce4j.conform.ConformContext;
import org.roce4j.conform.Direction;
import org.roce4j.conform.FrameFilter;
import org.roce4j.conform.Frames;
import org.roce4j.conform.Scenario;
import org.roce4j.conform.Side;
import org.roce4j.conform.Step;
import org.roce4j.conform.Steps;
import org.roce4j.conform.dut.DutWork;
import org.roce4j.ib.WcStatus;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.header.AethHeader.NakCode;

/**
 * Scenarios as YAML files a user can read and write: the same steps as {@link Steps}, parsed by Jackson's YAML
 * dataformat into a tree, then turned into a {@link Scenario}. The format is in docs/conform.md; an example:
 *
 * <pre>
 * name: responder.psn-sequence-error-yaml
 * side: responder
 * rule: {section: "9.9.3.1.2", paraphrase: "a request ahead of the expected PSN gets NAK PSN sequence error"}
 * summary: WRITE at expected+1
 * steps:
 *   - connect: rc
 *   - send: {opcode: RC_RDMA_WRITE_ONLY, psn: 1, payload: 64, ack_req: true, reth: {}}
 *   - expect: {nak: PSN_SEQUENCE_ERROR, psn: 0, within_us: 1000}
 * </pre>
 *
 * <p>A malformed file gets an {@link IllegalArgumentException} naming the file, the step and the problem.
 */
public final class ScenarioFile
{
    private ScenarioFile()
    {
    }

    /**
     * @param file a YAML scenario file.
     * @return the scenario.
     * @throws IOException              when the file cannot be read or is not YAML.
     * @throws IllegalArgumentException when it is YAML but not a valid scenario.
     */
    public static Scenario load(final Path file) throws IOException
    {
        final JsonNode root = new YAMLMapper().readTree(file.toFile());
        try
        {
            return parse(root);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException(file + ": " + ex.getMessage(), ex);
        }
    }

    /**
     * @param yaml the text of a scenario file.
     * @return the scenario.
     * @throws IOException              when the text is not YAML.
     * @throws IllegalArgumentException when it is not a valid scenario.
     */
    public static Scenario parse(final String yaml) throws IOException
    {
        return parse(new YAMLMapper().readTree(yaml));
    }

    private static Scenario parse(final JsonNode root)
    {
        if (null == root || !root.isObject())
        {
            throw new IllegalArgumentException("a scenario file is a mapping with name, side, rule, summary, steps");
        }
        final JsonNode rule = required(root, "rule");
        final Scenario.Builder builder = Scenario.builder(text(root, "name"))
            .side(Side.valueOf(text(root, "side").toUpperCase(Locale.ROOT)))
            .rule(text(rule, "section"), text(rule, "paraphrase"),
                rule.has("verified_by") ? rule.get("verified_by").asText() : null)
            .summary(root.path("summary").asText(""));
        final JsonNode steps = required(root, "steps");
        if (!steps.isArray())
        {
            throw new IllegalArgumentException("steps must be a list");
        }
        int index = 0;
        for (final JsonNode step : steps)
        {
            index++;
            try
            {
                builder.steps(step(step));
            }
            catch (final IllegalArgumentException ex)
            {
                throw new IllegalArgumentException("step " + index + " (" + step + "): " + ex.getMessage(), ex);
            }
        }
        return builder.build();
    }

    private static Step step(final JsonNode step)
    {
        if (!step.isObject() || 1 != step.size())
        {
            throw new IllegalArgumentException("a step is a mapping with exactly one key, the step's kind");
        }
        final Map.Entry<String, JsonNode> only = step.properties().iterator().next();
        final JsonNode args = only.getValue();
        switch (only.getKey())
        {
            case "connect":
                return "ud".equals(args.asText()) ? Steps.connectUd() : Steps.connect();
            case "post_recv":
                return Steps.postRecv(args.path("wr_id").asLong(1), args.path("offset").asInt(0),
                    number(args, "length"));
            case "post":
                return post(args);
            case "send":
                return Steps.send(args.toString(), FrameSpec.parse(args));
            case "drop":
                return Steps.dropNext(direction(args), filter(args), args.path("count").asInt(1));
            case "duplicate":
                return Steps.duplicateNext(direction(args), filter(args), args.path("count").asInt(1));
            case "delay":
                return Steps.delayNext(direction(args), filter(args), args.path("count").asInt(1),
                    1000L * number(args, "delay_us"));
            case "corrupt_icrc":
                return Steps.mutateNext(direction(args), filter(args), args.path("count").asInt(1),
                    "ICRC bit flipped", Frames::corruptIcrc);
            case "expect":
                return expect(args);
            case "expect_none":
                return Steps.expectNone(FrameFilter.any(), 1000L * number(args, "for_us"));
            case "advance_us":
                return Steps.advance(1000L * args.asLong());
            case "completion":
                return Steps.completion(args.path("wr_id").asLong(1), WcStatus.valueOf(text(args, "status")));
            case "qp":
                return qp(args.asText());
            case "check":
                return check(args.asText());
            default:
                throw new IllegalArgumentException("unknown step '" + only.getKey() + "'; steps are connect, " +
                    "post_recv, post, send, drop, duplicate, delay, corrupt_icrc, expect, expect_none, advance_us, " +
                    "completion, qp, check");
        }
    }

    private static Step post(final JsonNode args)
    {
        final String op = text(args, "op");
        final long wrId = args.path("wr_id").asLong(1);
        final int length = number(args, "length");
        final int offset = args.path("offset").asInt(0);
        switch (op)
        {
            case "write":
                return Steps.post("an RDMA WRITE of " + length + " bytes (wr_id " + wrId + ")",
                    ctx -> DutWork.write(wrId, offset, length, ConformContext.PEER_VA, ConformContext.PEER_RKEY));
            case "read":
                return Steps.post("an RDMA READ of " + length + " bytes (wr_id " + wrId + ")",
                    ctx -> DutWork.read(wrId, offset, length, ConformContext.PEER_VA, ConformContext.PEER_RKEY));
            case "send":
                return Steps.post("a SEND of " + length + " bytes (wr_id " + wrId + ")",
                    ctx -> DutWork.send(wrId, offset, length));
            default:
                throw new IllegalArgumentException("post op is write, read or send, not '" + op + "'");
        }
    }

    private static Step expect(final JsonNode args)
    {
        final FrameFilter filter = filter(args);
        final long withinNs = 1000L * number(args, "within_us");
        if (!args.has("psn") && !args.has("sq"))
        {
            return Steps.expect(filter, withinNs);
        }
        final boolean peerPsn = args.has("psn");
        final int offset = args.path(peerPsn ? "psn" : "sq").asInt();
        return new Step("expect " + filter.description() + " at " + (peerPsn ? "peer PSN + " : "DUT SQ PSN + ") +
            offset + " within " + withinNs / 1000 + " us", ctx -> Checks.equal(filter.description() + " PSN",
                FrameSpec.psn(ctx, peerPsn, offset), ctx.expect(filter, withinNs).psn()));
    }

    private static Step qp(final String state)
    {
        switch (state)
        {
            case "alive":
                return Steps.qpAlive();
            case "error":
                return Steps.qpInError();
            default:
                throw new IllegalArgumentException("qp is alive or error, not '" + state + "'");
        }
    }

    private static Step check(final String checker)
    {
        switch (checker)
        {
            case "msn_monotonic":
                return Steps.check("MSN monotonic", ctx -> Checkers.msnMonotonic(ctx.capture()));
            case "ack_psn_monotonic":
                return Steps.check("ACK PSN monotonic", ctx -> Checkers.ackPsnMonotonic(ctx.capture()));
            case "ackreq_answered":
                return Steps.check("AckReq answered", ctx -> Checkers.ackReqAnswered(ctx.capture()));
            case "ackreq_cadence":
                return Steps.check("AckReq cadence", ctx -> Checkers.ackReqCadence(ctx.capture(),
                    Checkers.MAX_PACKETS_WITHOUT_ACK_REQ));
            case "cnp_format":
                return Steps.check("CNP format", ctx -> Checkers.cnpFormat(ctx.capture(), ConformContext.PEER_QPN));
            case "cnp_pacing":
                return Steps.check("CNP pacing", ctx -> Checkers.cnpPacing(ctx.capture(),
                    Checkers.CNP_MIN_INTERVAL_NS));
            default:
                throw new IllegalArgumentException("unknown checker '" + checker + "' (msn_monotonic, " +
                    "ack_psn_monotonic, ackreq_answered, ackreq_cadence, cnp_format, cnp_pacing)");
        }
    }

    private static Direction direction(final JsonNode args)
    {
        return Direction.valueOf(text(args, "direction").toUpperCase(Locale.ROOT));
    }

    /** The frame filter of a fault or expect step: opcode, ack, nak, rnr_nak; all given must match. */
    private static FrameFilter filter(final JsonNode args)
    {
        final List<FrameFilter> parts = new ArrayList<>();
        if (args.has("opcode"))
        {
            parts.add(FrameFilter.opcode(Opcode.valueOf(text(args, "opcode"))));
        }
        if (args.path("ack").asBoolean(false))
        {
            parts.add(FrameFilter.ack());
        }
        if (args.has("nak"))
        {
            parts.add(FrameFilter.nak(NakCode.valueOf(text(args, "nak"))));
        }
        if (args.path("rnr_nak").asBoolean(false))
        {
            parts.add(FrameFilter.rnrNak());
        }
        FrameFilter filter = parts.isEmpty() ? FrameFilter.any() : parts.get(0);
        for (int i = 1; i < parts.size(); i++)
        {
            filter = filter.and(parts.get(i));
        }
        return filter;
    }

    static JsonNode required(final JsonNode node, final String field)
    {
        final JsonNode value = node.get(field);
        if (null == value || value.isNull())
        {
            throw new IllegalArgumentException("missing '" + field + "'");
        }
        return value;
    }

    static String text(final JsonNode node, final String field)
    {
        return required(node, field).asText();
    }

    static int number(final JsonNode node, final String field)
    {
        final JsonNode value = required(node, field);
        if (!value.canConvertToInt())
        {
            throw new IllegalArgumentException("'" + field + "' must be a number, not " + value);
        }
        return value.asInt();
    }
}
