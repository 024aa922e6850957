package org.roce4j.verbs;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.agrona.concurrent.AtomicBuffer;
import org.roce4j.ib.AhAttributes;
import org.roce4j.ib.QpType;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WcOpcode;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.ib.WrOpcode;
import org.roce4j.wire.addr.Gid;
import org.roce4j.transport.link.Link;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.roce4j.verbs.VethTrafficTest.ATOMICS;
import static org.roce4j.verbs.VethTrafficTest.KIND_CMP_SWAP;
import static org.roce4j.verbs.VethTrafficTest.KIND_FETCH_ADD;
import static org.roce4j.verbs.VethTrafficTest.KIND_READ;
import static org.roce4j.verbs.VethTrafficTest.KIND_SEND;
import static org.roce4j.verbs.VethTrafficTest.KIND_UD;
import static org.roce4j.verbs.VethTrafficTest.KIND_WRITE;
import static org.roce4j.verbs.VethTrafficTest.MAX_READ;
import static org.roce4j.verbs.VethTrafficTest.MAX_SEND;
import static org.roce4j.verbs.VethTrafficTest.MAX_UD;
import static org.roce4j.verbs.VethTrafficTest.MAX_WRITE;
import static org.roce4j.verbs.VethTrafficTest.QKEY;
import static org.roce4j.verbs.VethTrafficTest.RC_REQUESTS;
import static org.roce4j.verbs.VethTrafficTest.READS;
import static org.roce4j.verbs.VethTrafficTest.SENDS;
import static org.roce4j.verbs.VethTrafficTest.UD_MESSAGES;
import static org.roce4j.verbs.VethTrafficTest.UD_MIN_ARRIVAL;
import static org.roce4j.verbs.VethTrafficTest.WARM_UP;
import static org.roce4j.verbs.VethTrafficTest.WRITES;
import static org.roce4j.verbs.VethTrafficTest.WR_KIND;

/**
 * One device: an RC QP and a UD QP, the memory they use, the workload it posts and what it has seen complete.
 */
final class VethEndpoint
{
    private static final int ALL_ACCESS = VerbsFixture.ALL_ACCESS;

    final String name;
    final RdmaDevice device;
    final CompletionQueue sendCq;
    final CompletionQueue recvCq;
    final QueuePair rc;
    final QueuePair ud;
    final MemoryRegion sendSource;
    final MemoryRegion recvArea;
    final MemoryRegion writeSource;
    final MemoryRegion writeTarget;
    final MemoryRegion readSource;
    final MemoryRegion readTarget;
    final MemoryRegion atomics;
    final MemoryRegion atomicResults;
    final MemoryRegion udSource;
    final MemoryRegion udRecvArea;
    final ProtectionDomain pd;

    final int[] sendLength = new int[SENDS];
    final int[] sendOffset = new int[SENDS];
    final int[] writeLength = new int[WRITES];
    final int[] readLength = new int[READS];
    final int[] udLength = new int[UD_MESSAGES];
    final int[] udOffset = new int[UD_MESSAGES];
    final long[] fetchAdd = new long[ATOMICS];
    final long[] swapChain = new long[ATOMICS + 1];
    final long fetchAddStart;

    /** Completions seen, per work request id, so none may come twice. */
    final int[] rcCompleted = new int[RC_REQUESTS];
    int rcCompletions;
    int udSendCompletions;
    /** Receive completions seen, in arrival order. */
    final List<WorkCompletion> rcReceives = new ArrayList<>();
    final List<WorkCompletion> udReceives = new ArrayList<>();
    int udArrived;
    /** The warm-up SEND's completion and the peer's warm-up SEND's receive. */
    int warmUpCompletions;
    private final WorkCompletion[] out = VerbsFixture.completions(32);

    VethEndpoint(final String name, final Link link, final ProgressGroup group, final SplittableRandom random)
    {
        this.name = name;
        device = RdmaDevice.open(link, DeviceOptions.invoker().progressGroup(group).name(name));
        pd = device.allocPd();
        sendCq = device.createCq(1024);
        recvCq = device.createCq(1024);
        rc = pd.createQp(VerbsFixture.init(QpType.RC, sendCq, recvCq));
        ud = pd.createQp(VerbsFixture.init(QpType.UD, sendCq, recvCq));

        int total = 0;
        for (int i = 0; i < SENDS; i++)
        {
            sendLength[i] = 1 + random.nextInt(MAX_SEND);
            sendOffset[i] = total;
            total += sendLength[i];
        }
        sendSource = filled(total, random);
        recvArea = register(SENDS * MAX_SEND);
        for (int i = 0; i < WRITES; i++)
        {
            writeLength[i] = 1 + random.nextInt(MAX_WRITE);
        }
        writeSource = filled(WRITES * MAX_WRITE, random);
        writeTarget = register(WRITES * MAX_WRITE);
        for (int i = 0; i < READS; i++)
        {
            readLength[i] = 1 + random.nextInt(MAX_READ);
        }
        readSource = filled(READS * MAX_READ, random);
        readTarget = register(READS * MAX_READ);

        // The peer's FETCH_ADD counter lives at offset 0, its CMP_SWAP word at offset 8 (8-byte aligned).
        atomics = register(16);
        fetchAddStart = random.nextLong();
        swapChain[0] = random.nextLong();
        for (int i = 0; i < ATOMICS; i++)
        {
            fetchAdd[i] = random.nextLong();
            swapChain[i + 1] = random.nextLong();
        }
        atomics.buffer().putLong(0, fetchAddStart, ByteOrder.nativeOrder());
        atomics.buffer().putLong(8, swapChain[0], ByteOrder.nativeOrder());
        atomicResults = register(16 * ATOMICS);

        total = 0;
        for (int i = 0; i < UD_MESSAGES; i++)
        {
            udLength[i] = Long.BYTES + random.nextInt(MAX_UD - Long.BYTES + 1);
            udOffset[i] = total;
            total += udLength[i];
        }
        udSource = filled(total, random);
        for (int i = 0; i < UD_MESSAGES; i++)
        {
            // Each datagram carries its number first: UD may lose and reorder them.
            udSource.buffer().putLong(udOffset[i], i, ByteOrder.BIG_ENDIAN);
        }
        udRecvArea = register(UD_MESSAGES * (WorkCompletion.GRH_BYTES + MAX_UD));
    }

    private MemoryRegion register(final int size)
    {
        return pd.registerMemory(ByteBuffer.allocateDirect(size), ALL_ACCESS);
    }

    private MemoryRegion filled(final int size, final SplittableRandom random)
    {
        final MemoryRegion region = register(size);
        final byte[] bytes = new byte[size];
        for (int i = 0; i < size; i++)
        {
            bytes[i] = (byte)random.nextInt(256);
        }
        region.buffer().putBytes(0, bytes);
        return region;
    }

    void postWarmUp()
    {
        rc.postRecv(new RecvWorkRequest().wrId(WARM_UP).addSge(recvArea, 0, MAX_SEND));
        rc.postSend(new SendWorkRequest().wrId(WARM_UP).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
            .addSge(sendSource, 0, 1));
    }

    void postReceives()
    {
        for (int i = 0; i < SENDS; i++)
        {
            rc.postRecv(new RecvWorkRequest().wrId(i).addSge(recvArea, (long)i * MAX_SEND, MAX_SEND));
        }
        for (int i = 0; i < UD_MESSAGES; i++)
        {
            ud.postRecv(new RecvWorkRequest().wrId(i)
                .addSge(udRecvArea, (long)i * (WorkCompletion.GRH_BYTES + MAX_UD),
                    WorkCompletion.GRH_BYTES + MAX_UD));
        }
    }

    void postRequests(final VethEndpoint peer)
    {
        for (int i = 0; i < SENDS; i++)
        {
            rc.postSend(new SendWorkRequest().wrId(KIND_SEND * WR_KIND + i).opcode(WrOpcode.SEND)
                .sendFlags(SendFlags.SIGNALED).addSge(sendSource, sendOffset[i], sendLength[i]));
        }
        for (int i = 0; i < WRITES; i++)
        {
            rc.postSend(new SendWorkRequest().wrId(KIND_WRITE * WR_KIND + i).opcode(WrOpcode.RDMA_WRITE)
                .sendFlags(SendFlags.SIGNALED).addSge(writeSource, (long)i * MAX_WRITE, writeLength[i])
                .rdma(peer.writeTarget.address((long)i * MAX_WRITE), peer.writeTarget.rkey()));
        }
        for (int i = 0; i < READS; i++)
        {
            rc.postSend(new SendWorkRequest().wrId(KIND_READ * WR_KIND + i).opcode(WrOpcode.RDMA_READ)
                .sendFlags(SendFlags.SIGNALED).addSge(readTarget, (long)i * MAX_READ, readLength[i])
                .rdma(peer.readSource.address((long)i * MAX_READ), peer.readSource.rkey()));
        }
        for (int i = 0; i < ATOMICS; i++)
        {
            // A chain: each CMP_SWAP expects what the one before it wrote, so every one must succeed once.
            rc.postSend(new SendWorkRequest().wrId(KIND_CMP_SWAP * WR_KIND + i).opcode(WrOpcode.ATOMIC_CMP_AND_SWP)
                .sendFlags(SendFlags.SIGNALED).addSge(atomicResults, 16L * i, Long.BYTES)
                .atomic(peer.atomics.address(8), peer.atomics.rkey(), peer.swapChain[i], peer.swapChain[i + 1]));
            rc.postSend(new SendWorkRequest().wrId(KIND_FETCH_ADD * WR_KIND + i)
                .opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).sendFlags(SendFlags.SIGNALED)
                .addSge(atomicResults, 16L * i + 8, Long.BYTES)
                .atomic(peer.atomics.address(0), peer.atomics.rkey(), peer.fetchAdd[i], 0));
        }
        final Gid peerGid = peer.device.queryGid(1);
        final AddressHandle ah = pd.createAh(new AhAttributes().dgid(peerGid.high(), peerGid.low()).sgidIndex(1));
        for (int i = 0; i < UD_MESSAGES; i++)
        {
            ud.postSend(new SendWorkRequest().wrId(KIND_UD * WR_KIND + i).opcode(WrOpcode.SEND)
                .sendFlags(SendFlags.SIGNALED).addSge(udSource, udOffset[i], udLength[i])
                .ud(ah, peer.ud.qpNum(), QKEY));
        }
    }

    /**
     * Take completions from both CQs (polling drives the whole progress group).
     *
     * @return completions taken.
     */
    int take()
    {
        int taken = 0;
        int n = sendCq.poll(out);
        for (int i = 0; i < n; i++)
        {
            if (WARM_UP == out[i].wrId())
            {
                assertEquals(WcStatus.SUCCESS, out[i].status(), name + " warm-up " + out[i]);
                warmUpCompletions++;
                continue;
            }
            onSendCompletion(out[i]);
        }
        taken += n;
        n = recvCq.poll(out);
        for (int i = 0; i < n; i++)
        {
            final WorkCompletion wc = out[i];
            final WorkCompletion copy = new WorkCompletion().set(wc.wrId(), wc.status(), wc.opcode(),
                wc.byteLen(), wc.immData(), wc.qpNum(), wc.srcQp(), wc.wcFlags(), wc.invalidatedRkey());
            assertEquals(WcStatus.SUCCESS, wc.status(), name + " receive " + wc);
            if (WARM_UP == wc.wrId())
            {
                assertEquals(1, wc.byteLen(), name + " warm-up " + wc);
                warmUpCompletions++;
            }
            else if (rc.qpNum() == wc.qpNum())
            {
                rcReceives.add(copy);
            }
            else
            {
                udReceives.add(copy);
                udArrived++;
            }
        }
        return taken + n;
    }

    private void onSendCompletion(final WorkCompletion wc)
    {
        assertEquals(WcStatus.SUCCESS, wc.status(), name + " send completion " + wc);
        final int kind = (int)(wc.wrId() / WR_KIND);
        final int index = (int)(wc.wrId() % WR_KIND);
        if (KIND_UD == kind)
        {
            assertEquals(WcOpcode.SEND, wc.opcode(), name + " " + wc);
            udSendCompletions++;
            return;
        }
        final int slot = rcSlot(kind, index);
        rcCompleted[slot]++;
        if (1 != rcCompleted[slot])
        {
            fail(name + ": work request " + wc.wrId() + " completed " + rcCompleted[slot] + " times");
        }
        final WcOpcode expected = switch (kind)
        {
            case KIND_SEND -> WcOpcode.SEND;
            case KIND_WRITE -> WcOpcode.RDMA_WRITE;
            case KIND_READ -> WcOpcode.RDMA_READ;
            case KIND_CMP_SWAP -> WcOpcode.COMP_SWAP;
            default -> WcOpcode.FETCH_ADD;
        };
        assertEquals(expected, wc.opcode(), name + " " + wc);
        rcCompletions++;
    }

    private static int rcSlot(final int kind, final int index)
    {
        return switch (kind)
        {
            case KIND_SEND -> index;
            case KIND_WRITE -> SENDS + index;
            case KIND_READ -> SENDS + WRITES + index;
            case KIND_CMP_SWAP -> SENDS + WRITES + READS + index;
            case KIND_FETCH_ADD -> SENDS + WRITES + READS + ATOMICS + index;
            default -> throw new IllegalArgumentException("work request kind " + kind);
        };
    }

    boolean done(final boolean everyDatagram)
    {
        return RC_REQUESTS == rcCompletions && SENDS == rcReceives.size() &&
            UD_MESSAGES == udSendCompletions && (!everyDatagram || UD_MESSAGES == udArrived);
    }

    String progress()
    {
        return "rc " + rcCompletions + "/" + RC_REQUESTS + ", received " + rcReceives.size() + "/" + SENDS +
            ", ud sent " + udSendCompletions + "/" + UD_MESSAGES + ", ud arrived " + udArrived;
    }

    /**
     * Check what this side's requests did to the peer and what the peer's requests did here.
     *
     * @param peer          the other side.
     * @param everyDatagram true over a clean veth, where no UD datagram may be lost.
     */
    void checkArrivals(final VethEndpoint peer, final boolean everyDatagram)
    {
        // SENDs from the peer, in order, each once, byte for byte.
        for (int i = 0; i < SENDS; i++)
        {
            final WorkCompletion wc = rcReceives.get(i);
            assertEquals(i, wc.wrId(), name + ": RC receives complete in order");
            assertEquals(WcOpcode.RECV, wc.opcode());
            assertEquals(peer.sendLength[i], wc.byteLen(), name + ": length of SEND " + i);
            assertBytes(peer.sendSource.buffer(), peer.sendOffset[i], recvArea.buffer(), i * MAX_SEND,
                peer.sendLength[i], name + ": SEND " + i);
        }
        // This side's WRITEs landed in the peer's memory, and its READs brought the peer's bytes back.
        for (int i = 0; i < WRITES; i++)
        {
            assertBytes(writeSource.buffer(), i * MAX_WRITE, peer.writeTarget.buffer(), i * MAX_WRITE,
                writeLength[i], name + ": WRITE " + i);
        }
        for (int i = 0; i < READS; i++)
        {
            assertBytes(peer.readSource.buffer(), i * MAX_READ, readTarget.buffer(), i * MAX_READ, readLength[i],
                name + ": READ " + i);
        }
        // Atomics on the peer: each executed exactly once, in order.
        long counter = peer.fetchAddStart;
        for (int i = 0; i < ATOMICS; i++)
        {
            assertEquals(peer.swapChain[i], atomicResults.buffer().getLong(16 * i, ByteOrder.nativeOrder()),
                name + ": CMP_SWAP " + i + " saw the value the one before it wrote");
            assertEquals(counter, atomicResults.buffer().getLong(16 * i + 8, ByteOrder.nativeOrder()),
                name + ": FETCH_ADD " + i + " returned the running sum");
            counter += peer.fetchAdd[i];
        }
        assertEquals(counter, peer.atomics.buffer().getLong(0, ByteOrder.nativeOrder()),
            name + ": every FETCH_ADD added once");
        assertEquals(peer.swapChain[ATOMICS], peer.atomics.buffer().getLong(8, ByteOrder.nativeOrder()),
            name + ": every CMP_SWAP swapped once");

        // UD datagrams from the peer: each intact, none twice; all of them over a clean veth.
        final boolean[] seen = new boolean[UD_MESSAGES];
        for (final WorkCompletion wc : udReceives)
        {
            final AtomicBuffer area = udRecvArea.buffer();
            final int at = (int)wc.wrId() * (WorkCompletion.GRH_BYTES + MAX_UD) + WorkCompletion.GRH_BYTES;
            final long number = area.getLong(at, ByteOrder.BIG_ENDIAN);
            assertTrue(number >= 0 && number < UD_MESSAGES, name + ": UD datagram number " + number);
            final int message = (int)number;
            assertTrue(!seen[message], name + ": UD datagram " + message + " arrived twice");
            seen[message] = true;
            assertEquals(WorkCompletion.GRH_BYTES + peer.udLength[message], wc.byteLen(), name + ": UD datagram " +
                message);
            assertBytes(peer.udSource.buffer(), peer.udOffset[message], area, at, peer.udLength[message],
                name + ": UD datagram " + message);
        }
        if (everyDatagram)
        {
            assertEquals(UD_MESSAGES, udArrived, name + ": UD datagrams over a clean veth");
        }
        else
        {
            assertTrue(udArrived >= UD_MIN_ARRIVAL * UD_MESSAGES,
                name + ": only " + udArrived + " of " + UD_MESSAGES + " UD datagrams arrived");
        }
        // Nothing more may complete: every work request completed once. (Over the lossy veth a late UD
        // datagram may still arrive; every RC receive was already taken, so nothing else can.)
        assertEquals(0, sendCq.poll(out), name + ": no completion beyond the work requests");
        if (everyDatagram)
        {
            assertEquals(0, recvCq.poll(out), name + ": no receive beyond the messages sent");
        }
    }

    void close()
    {
        device.close();
    }

    private static void assertBytes(
        final AtomicBuffer expected,
        final int expectedOffset,
        final AtomicBuffer actual,
        final int actualOffset,
        final int length,
        final String what)
    {
        for (int i = 0; i < length; i++)
        {
            if (expected.getByte(expectedOffset + i) != actual.getByte(actualOffset + i))
            {
                fail(what + ": byte " + i + " of " + length + " differs: expected " +
                    expected.getByte(expectedOffset + i) + ", got " + actual.getByte(actualOffset + i));
            }
        }
    }
}
