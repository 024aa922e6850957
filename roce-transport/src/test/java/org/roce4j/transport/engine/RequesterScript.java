package org.roce4j.transport.engine;

import java.util.ArrayList;
import java.util.List;

import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WrOpcode;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.header.AethHeader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.roce4j.transport.engine.ScriptedPeer.PEER_QPN;
import static org.roce4j.transport.engine.ScriptedPeer.SQ_PSN;
import static org.roce4j.transport.engine.ScriptedPeer.pattern;
import static org.roce4j.transport.engine.ScriptedPeer.slice;

/**
 * The script the requester and completer tests share: the engine's QP is the requester, a {@link ScriptedPeer}
 * answers; local memory holding the pattern sent, WRs posted against the peer's remote buffer, and checks of what was
 * sent.
 */
final class RequesterScript
{
    static final long REMOTE_VA = 0x7000_0000L;
    static final int REMOTE_RKEY = 0xABCD;
    static final int S = SQ_PSN;
    static final int ACK = AethHeader.SYNDROME_ACK_UNLIMITED;

    /** Local memory: the first 64 KiB hold the pattern sent; READ and atomic results land above. */
    static MemoryRegionEntry local(final ScriptedPeer peer)
    {
        final MemoryRegionEntry mr = peer.mr(128 * 1024, AccessFlags.LOCAL_WRITE);
        mr.memory().putBytes(0, pattern(64 * 1024, 0));
        return mr;
    }

    static byte[] sentPattern(final int offset, final int length)
    {
        return slice(pattern(64 * 1024, 0), offset, length);
    }

    static void postSend(final ScriptedPeer peer, final long wrId, final MemoryRegionEntry mr,
        final int offset, final int length)
    {
        post(peer, WrOpcode.SEND, wrId, mr, offset, length, SendFlags.SIGNALED);
    }

    static void post(final ScriptedPeer peer, final WrOpcode opcode, final long wrId,
        final MemoryRegionEntry mr, final int offset, final int length, final int flags)
    {
        peer.post(w -> w.wrId(wrId).opcode(opcode).flags(flags).remote(REMOTE_VA + offset, REMOTE_RKEY)
            .immediate(0x5EED).sgl().add(mr.iova() + offset, length, mr.lkey()));
    }

    static void postRead(final ScriptedPeer peer, final long wrId, final MemoryRegionEntry mr,
        final int localOffset, final int length, final int flags)
    {
        peer.post(w -> w.wrId(wrId).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED | flags)
            .remote(REMOTE_VA, REMOTE_RKEY).sgl().add(mr.iova() + localOffset, length, mr.lkey()));
    }

    static void postFetchAdd(final ScriptedPeer peer, final long wrId, final MemoryRegionEntry mr,
        final int localOffset)
    {
        peer.post(w -> w.wrId(wrId).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).flags(SendFlags.SIGNALED)
            .remote(REMOTE_VA, REMOTE_RKEY).atomic(1, 0).sgl().add(mr.iova() + localOffset, 8, mr.lkey()));
    }

    static void assertSent(final SentPacket sent, final Opcode opcode, final int psn)
    {
        assertEquals(opcode, sent.opcode(), sent.toString());
        assertEquals(psn, sent.psn(), sent.toString());
        assertEquals(PEER_QPN, sent.destQp(), sent.toString());
    }

    static List<Integer> psns(final List<SentPacket> sent)
    {
        final List<Integer> out = new ArrayList<>();
        for (final SentPacket s : sent)
        {
            out.add(s.psn());
        }
        return out;
    }

    private RequesterScript()
    {
    }
}
