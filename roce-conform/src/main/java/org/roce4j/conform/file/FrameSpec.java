package org.roce4j.conform.file;

import java.util.function.Function;

import com.fasterxml.jackson.databind.JsonNode;
import org.roce4j.conform.ConformContext;
import org.roce4j.conform.Frames;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.wire.ExtHeader;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.Psn;
import org.roce4j.wire.header.AethHeader;

/**
 * The {@code send} step of a scenario file: which frame the peer crafts, its fields named relative to the connection
 * (PSN offsets, the DUT's region, its R_Key flipped...) so one file fits any DUT.
 *
 * <p>Keys: {@code opcode} (an {@link Opcode} name); {@code psn} (offset from the peer's first PSN, for requests) or
 * {@code sq} (offset from the DUT's first send PSN, for ACKs and responses); {@code payload} (bytes of a pattern),
 * {@code seed}; {@code ack_req}; {@code pkey}; {@code tver}; {@code dest_ip}; {@code ecn} (the IPv4 ECN field, 0 to
 * 3; 3 is CE, Congestion Experienced); {@code reth: {va_offset, rkey,
 * dma_length}} and {@code atomic: {va_offset, rkey, swap_add, compare}} with rkey {@code region}, {@code flipped} or
 * {@code restricted}; {@code aeth: {syndrome, msn}}; {@code qkey} ({@code qp} or {@code flipped}) for UD.
 */
final class FrameSpec
{
    /** XORed into the DUT's R_Key for {@code rkey: flipped}: changes the key, keeps it plausible. */
    private static final int FLIP_RKEY = 0x5A00;
    /** The largest value of the 2-bit IP ECN field (RFC 3168): CE. */
    private static final int ECN_MAX = 3;

    private FrameSpec()
    {
    }

    static Function<ConformContext, byte[]> parse(final JsonNode args)
    {
        final Opcode opcode = Opcode.valueOf(ScenarioFile.text(args, "opcode"));
        final boolean peerPsn = !args.has("sq");
        final int psnOffset = args.path(peerPsn ? "psn" : "sq").asInt(0);
        final byte[] payload = Frames.pattern(args.path("payload").asInt(0), args.path("seed").asInt(1));
        final JsonNode reth = args.path("reth");
        final JsonNode atomic = args.path("atomic");
        final JsonNode aeth = args.path("aeth");
        if (opcode.has(ExtHeader.RETH) && reth.isMissingNode())
        {
            throw new IllegalArgumentException(opcode + " needs a reth: {va_offset, rkey, dma_length}");
        }
        if (opcode.has(ExtHeader.ATOMIC_ETH) && atomic.isMissingNode())
        {
            throw new IllegalArgumentException(opcode + " needs an atomic: {va_offset, rkey, swap_add, compare}");
        }
        if (opcode.has(ExtHeader.AETH) && aeth.isMissingNode())
        {
            throw new IllegalArgumentException(opcode + " needs an aeth: {syndrome, msn}");
        }
        checkRkey(reth);
        checkRkey(atomic);
        final int ecn = args.path("ecn").asInt(0);
        if (ecn < 0 || ecn > ECN_MAX)
        {
            throw new IllegalArgumentException("ecn is the 2-bit IP ECN field, 0 to 3, not " + ecn);
        }
        final int destinationIp = args.has("dest_ip") ? LinkAddress.ofIpv4(args.get("dest_ip").asText()).ipv4() : 0;
        return ctx -> ctx.frameTo(0 != destinationIp ? destinationIp : ctx.qp().address().ipv4(), ctx.qp().qpn(),
            opcode, psn(ctx, peerPsn, psnOffset), payload, b ->
            {
                b.bthHeader().ackReq(args.path("ack_req").asBoolean(false));
                b.ipv4Header().tos(ecn);
                if (args.has("pkey"))
                {
                    b.bthHeader().pkey(args.get("pkey").asInt());
                }
                if (args.has("tver"))
                {
                    b.bthHeader().transportVersion(args.get("tver").asInt());
                }
                if (opcode.has(ExtHeader.RETH))
                {
                    b.reth().va(va(ctx, reth)).rkey(rkey(ctx, reth)).dmaLength(reth.path("dma_length")
                        .asLong(payload.length));
                }
                if (opcode.has(ExtHeader.ATOMIC_ETH))
                {
                    b.atomicEth().va(va(ctx, atomic)).rkey(rkey(ctx, atomic)).swapAdd(atomic.path("swap_add")
                        .asLong(0)).compare(atomic.path("compare").asLong(0));
                }
                if (opcode.has(ExtHeader.AETH))
                {
                    b.aeth().syndrome(aeth.path("syndrome").asInt(AethHeader.SYNDROME_ACK_UNLIMITED))
                        .msn(aeth.path("msn").asInt(0));
                }
                if (opcode.has(ExtHeader.DETH))
                {
                    final int qkey = ctx.qp().qkey();
                    b.deth().qkey("flipped".equals(args.path("qkey").asText("qp")) ? qkey ^ 1 : qkey)
                        .srcQp(ConformContext.PEER_QPN);
                }
            });
    }

    /**
     * @param ctx     the scenario.
     * @param peerPsn true for an offset from the peer's first PSN, false from the DUT's first send PSN.
     * @param offset  the offset.
     * @return the PSN.
     */
    static int psn(final ConformContext ctx, final boolean peerPsn, final int offset)
    {
        return Psn.add(peerPsn ? ConformContext.PEER_PSN : ctx.qp().sqPsn(), offset);
    }

    private static void checkRkey(final JsonNode ext)
    {
        final String rkey = ext.path("rkey").asText("region");
        if (!"region".equals(rkey) && !"flipped".equals(rkey) && !"restricted".equals(rkey))
        {
            throw new IllegalArgumentException("rkey is region, flipped or restricted, not '" + rkey + "'");
        }
    }

    private static boolean restricted(final JsonNode ext)
    {
        return "restricted".equals(ext.path("rkey").asText("region"));
    }

    private static long va(final ConformContext ctx, final JsonNode ext)
    {
        return (restricted(ext) ? ctx.qp().restrictedVa() : ctx.qp().va()) + ext.path("va_offset").asLong(0);
    }

    private static int rkey(final ConformContext ctx, final JsonNode ext)
    {
        switch (ext.path("rkey").asText("region"))
        {
            case "flipped":
                return ctx.qp().rkey() ^ FLIP_RKEY;
            case "restricted":
                return ctx.qp().restrictedRkey();
            default:
                return ctx.qp().rkey();
        }
    }
}
