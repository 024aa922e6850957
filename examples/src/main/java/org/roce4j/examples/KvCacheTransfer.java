package org.roce4j.examples;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.agrona.concurrent.AtomicBuffer;
import org.roce4j.cm.rdmacm.ConnParam;
import org.roce4j.cm.rdmacm.RdmaCm;
import org.roce4j.cm.rdmacm.RdmaCmEvent;
import org.roce4j.cm.rdmacm.RdmaCmEventType;
import org.roce4j.cm.rdmacm.RdmaCmId;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WcOpcode;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.ib.WrOpcode;
import org.roce4j.transport.TransportCounter;
import org.roce4j.verbs.CompletionQueue;
import org.roce4j.verbs.MemoryRegion;
import org.roce4j.verbs.ProtectionDomain;
import org.roce4j.verbs.QpInitAttributes;
import org.roce4j.verbs.QueuePair;
import org.roce4j.verbs.RdmaDevice;
import org.roce4j.verbs.RecvWorkRequest;
import org.roce4j.verbs.SendWorkRequest;

/**
 * The KV-cache hand-off of disaggregated LLM serving, as Mooncake's transfer engine does it: the prefill node has
 * computed the attention keys and values of a prompt, N pages of them, and pushes them into the decode node's memory
 * with RDMA WRITEs; the last page goes as a WRITE with immediate whose 32 bits carry the page count. The decode node
 * posts one receive per hand-off and learns from that one completion, and its immediate, that all N pages have landed
 * (RC delivers in order: the last WRITE completes after the others). It never touches the pages' data path.
 *
 * <p>Here the decode side is the rdma_cm server: it registers its KV region (pages x page size) and accepts the
 * prefill's connection with the region's address, rkey and shape in the private data (Mooncake exchanges the same
 * through its metadata service). For each hand-off the prefill fills its pages, writes them, waits for the decode
 * side's one-SEND "ready for the next" credit; the decode side checks the immediate and every byte of every page,
 * then sends the credit. The prefill side prints the throughput: payload over the time from each hand-off's first
 * WRITE to the completion of its last (every page acknowledged, so in the decode side's memory), and how many
 * packets it had to send again.
 *
 * <pre>
 * java -jar examples/target/examples.jar kv-cache                      # both sides here, in-memory fabric
 * java -jar examples/target/examples.jar kv-cache decode  --link udp:10.81.0.1                     # host or netns A
 * java -jar examples/target/examples.jar kv-cache prefill --link udp:10.81.0.2 --server 10.81.0.1  # host or netns B
 *   options: --pages 64 --page-size 65536 --rounds 20 --port 18600
 * </pre>
 * examples/kv-cache-netns.sh runs the two roles in two network namespaces joined by a veth pair (root).
 */
public final class KvCacheTransfer
{
    /** The rdma_cm port the decode side listens on unless --port says otherwise. */
    public static final int DEFAULT_PORT = 18600;
    /** Bytes of the decode side's accept private data: address, rkey, pages, page size. */
    private static final int REGION_INFO_BYTES = Long.BYTES + 3 * Integer.BYTES;
    /** How long any single wait may take before the example gives up (a guard, not a deadline). */
    private static final long WAIT_NS = TimeUnit.SECONDS.toNanos(30);
    private static final int CREDIT_BYTES = Long.BYTES;
    /** Send queue depth of the prefill's QP: the most pages one hand-off may have (one WRITE per page). */
    private static final int MAX_PAGES = 1024;

    private KvCacheTransfer()
    {
    }

    /**
     * The settings both roles take.
     *
     * @param link     the link spec of this side's device.
     * @param server   the decode side's address (prefill only).
     * @param port     rdma_cm port.
     * @param pages    pages per hand-off.
     * @param pageSize bytes per page.
     * @param rounds   hand-offs.
     */
    public record Settings(String link, String server, int port, int pages, int pageSize, int rounds)
    {
        /**
         * @return the bytes one hand-off moves.
         */
        public long bytesPerRound()
        {
            return (long)pages * pageSize;
        }
    }

    /**
     * What the prefill side measured.
     *
     * @param bytes           payload moved.
     * @param nanos           the hand-offs' transfer time: each from its first WRITE to the completion of its last
     *                        (all pages acknowledged, so in the decode side's memory), summed.
     * @param rounds          hand-offs.
     * @param pages           pages per hand-off.
     * @param pageSize        bytes per page.
     * @param retransmissions packets the prefill side sent again (0 on a clean link).
     */
    public record Result(long bytes, long nanos, int rounds, int pages, int pageSize, long retransmissions)
    {
        /**
         * @return e.g. {@code kv-cache: 20 hand-offs of 64 pages x 65536 B (80.0 MiB) in 0.41 s: 204.5 MB/s, 1.64
         *     Gbit/s, 0 packets retransmitted; every byte verified by the decode side}.
         */
        public String describe()
        {
            final double seconds = nanos / 1e9;
            return String.format(Locale.ROOT, "kv-cache: %d hand-offs of %d pages x %d B (%.1f MiB) in %.2f s: " +
                "%.1f MB/s, %.2f Gbit/s, %d packets retransmitted; every byte verified by the decode side", rounds,
                pages, pageSize, bytes / 1048576.0, seconds, bytes / seconds / 1e6, bytes * 8 / seconds / 1e9,
                retransmissions);
        }
    }

    /**
     * @param args {@code [both|decode|prefill] [--link SPEC] [--server IP] [--port N] [--pages N] [--page-size N]
     *             [--rounds N]}.
     * @throws Exception when a side fails (the message says where).
     */
    public static void main(final String[] args) throws Exception
    {
        final String role = args.length > 0 && !args[0].startsWith("--") ? args[0] : "both";
        final Settings defaults = parse(args, "both".equals(role) ? null : defaultLink(role));
        switch (role)
        {
            case "both":
                System.out.println(runBoth(defaults).describe());
                break;
            case "decode":
                decode(defaults, () -> System.out.println("decode: listening on port " + defaults.port()));
                break;
            case "prefill":
                System.out.println(prefill(defaults).describe());
                break;
            default:
                throw new IllegalArgumentException("role must be both, decode or prefill, got " + role);
        }
    }

    /**
     * Both sides in this JVM over its in-memory fabric (9000-byte MTU, 4096-byte RoCE packets): the decode side on a
     * thread of its own, which opens and drives its device, the prefill side on this thread.
     *
     * @param settings sizes; the links are ports of this JVM's fabric.
     * @return what the prefill side measured.
     * @throws Exception when a side fails.
     */
    public static Result runBoth(final Settings settings) throws Exception
    {
        final Settings decodeSide = new Settings("memory:10.0.3.1,mtu=9000", null, settings.port(), settings.pages(),
            settings.pageSize(), settings.rounds());
        final Settings prefillSide = new Settings("memory:10.0.3.2,mtu=9000", "10.0.3.1", settings.port(),
            settings.pages(), settings.pageSize(), settings.rounds());
        final CountDownLatch listening = new CountDownLatch(1);
        final CompletableFuture<Void> decoder = CompletableFuture.runAsync(() ->
        {
            try
            {
                decode(decodeSide, listening::countDown);
            }
            catch (final IOException ex)
            {
                throw new IllegalStateException("decode: " + ex.getMessage(), ex);
            }
        });
        if (!listening.await(WAIT_NS, TimeUnit.NANOSECONDS))
        {
            throw new IllegalStateException("the decode side did not listen" + (decoder.isDone() ? " (it ended)" : ""));
        }
        final Result result = prefill(prefillSide);
        try
        {
            decoder.get(WAIT_NS, TimeUnit.NANOSECONDS);
        }
        catch (final ExecutionException ex)
        {
            throw new IllegalStateException(ex.getCause().getMessage(), ex.getCause());
        }
        return result;
    }

    /**
     * The decode side: listen, accept one prefill with the KV region's address, rkey and shape, then for every
     * hand-off post one receive, wait for the WRITE with immediate, check the page count it carries and every byte,
     * and send the credit.
     *
     * @param settings   link, port, sizes.
     * @param onListening called once the listener is up (a script or test may start the prefill then).
     * @throws IOException when the link cannot be opened.
     */
    public static void decode(final Settings settings, final Runnable onListening) throws IOException
    {
        try (RdmaDevice device = RdmaDevice.open(settings.link());
            RdmaCm cm = RdmaCm.open(device))
        {
            final ProtectionDomain pd = device.allocPd();
            final MemoryRegion kv = pd.registerMemory(ByteBuffer.allocateDirect((int)settings.bytesPerRound()),
                AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
            final MemoryRegion credit = pd.registerMemory(ByteBuffer.allocateDirect(CREDIT_BYTES),
                AccessFlags.LOCAL_WRITE);
            // Receives and sends on CQs of their own: the credit's send completion may come after the next
            // hand-off's receive completion (the ACK that completes it travels with the prefill's next packets).
            final CompletionQueue recvCq = device.createCq(16);
            final CompletionQueue sendCq = device.createCq(16);
            final RdmaCmId listener = cm.createId().listen(new InetSocketAddress("0.0.0.0", settings.port()), 1);
            onListening.run();
            final RdmaCmEvent request = cm.expect(listener, RdmaCmEventType.CONNECT_REQUEST, Long.MAX_VALUE);
            final int rounds = ByteBuffer.wrap(request.privateData()).getInt(0);
            final RdmaCmId connection = request.id();
            final QueuePair qp = connection.createQp(pd, new QpInitAttributes().sendCq(sendCq).recvCq(recvCq)
                .cap(4, 4, 1, 1, 0));
            final RecvWorkRequest recv = new RecvWorkRequest().wrId(0);
            qp.postRecv(recv);
            connection.accept(new ConnParam().privateData(ByteBuffer.allocate(REGION_INFO_BYTES)
                .putLong(kv.address(0)).putInt(kv.rkey()).putInt(settings.pages()).putInt(settings.pageSize())
                .array()));
            cm.expect(connection, RdmaCmEventType.ESTABLISHED, WAIT_NS);
            final SendWorkRequest send = new SendWorkRequest().opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .addSge(credit, 0, CREDIT_BYTES);
            final WorkCompletion[] wc = new WorkCompletion[1];
            for (int round = 0; round < rounds; round++)
            {
                final WorkCompletion done = await(recvCq, wc, "the WRITE with immediate of hand-off " + round);
                if (WcOpcode.RECV_RDMA_WITH_IMM != done.opcode() || settings.pages() != done.immData())
                {
                    throw new IllegalStateException("hand-off " + round + ": expected an immediate of " +
                        settings.pages() + " pages, got " + done);
                }
                verify(kv.buffer(), round, settings);
                qp.postRecv(recv.wrId(round + 1));
                credit.buffer().putLong(0, round);
                qp.postSend(send.wrId(round));
                await(sendCq, wc, "the credit of hand-off " + round);
            }
            connection.disconnect();
            cm.expect(connection, RdmaCmEventType.DISCONNECTED, WAIT_NS);
            System.out.println("decode: " + rounds + " hand-offs of " + settings.pages() + " pages, page counts and " +
                "every byte checked");
        }
    }

    /**
     * The prefill side: connect, learn the decode side's KV region from the accept, then per hand-off fill the pages,
     * WRITE them (the last one with the page count as immediate) and wait for the credit.
     *
     * @param settings link, server, port, rounds (the page shape is the decode side's).
     * @return what it measured.
     * @throws IOException when the link cannot be opened.
     */
    public static Result prefill(final Settings settings) throws IOException
    {
        try (RdmaDevice device = RdmaDevice.open(settings.link());
            RdmaCm cm = RdmaCm.open(device))
        {
            final ProtectionDomain pd = device.allocPd();
            final CompletionQueue sendCq = device.createCq(16);
            final CompletionQueue recvCq = device.createCq(16);
            final RdmaCmId id = cm.createId();
            final QueuePair qp = id.createQp(pd, new QpInitAttributes().sendCq(sendCq).recvCq(recvCq)
                .cap(MAX_PAGES, 4, 1, 1, 0));
            final MemoryRegion credit = pd.registerMemory(ByteBuffer.allocateDirect(CREDIT_BYTES),
                AccessFlags.LOCAL_WRITE);
            final RecvWorkRequest recv = new RecvWorkRequest().addSge(credit, 0, CREDIT_BYTES);
            qp.postRecv(recv.wrId(0));
            id.connect(new InetSocketAddress(InetAddress.getByName(settings.server()), settings.port()),
                new ConnParam().privateData(ByteBuffer.allocate(Integer.BYTES).putInt(settings.rounds()).array()));
            final ByteBuffer region = ByteBuffer.wrap(cm.expect(id, RdmaCmEventType.ESTABLISHED, WAIT_NS)
                .privateData());
            final long remoteAddress = region.getLong();
            final int rkey = region.getInt();
            final Settings shape = new Settings(settings.link(), settings.server(), settings.port(), region.getInt(),
                region.getInt(), settings.rounds());
            if (shape.pages() > MAX_PAGES)
            {
                throw new IllegalStateException("the decode side has " + shape.pages() + " pages; this prefill " +
                    "writes at most " + MAX_PAGES + " per hand-off");
            }
            final MemoryRegion pages = pd.registerMemory(ByteBuffer.allocateDirect((int)shape.bytesPerRound()),
                AccessFlags.LOCAL_WRITE);
            final SendWorkRequest write = new SendWorkRequest();
            final WorkCompletion[] wc = new WorkCompletion[1];
            long busyNs = 0;
            for (int round = 0; round < shape.rounds(); round++)
            {
                fill(pages.buffer(), round, shape);
                final long start = System.nanoTime();
                for (int page = 0; page < shape.pages(); page++)
                {
                    final boolean last = shape.pages() - 1 == page;
                    // Only the last WRITE is signaled: its completion retires the unsignaled ones before it.
                    qp.postSend(write.reset().wrId(page)
                        .opcode(last ? WrOpcode.RDMA_WRITE_WITH_IMM : WrOpcode.RDMA_WRITE)
                        .sendFlags(last ? SendFlags.SIGNALED : 0).immData(shape.pages())
                        .addSge(pages, page * shape.pageSize(), shape.pageSize())
                        .rdma(remoteAddress + (long)page * shape.pageSize(), rkey));
                }
                await(sendCq, wc, "the WRITEs of hand-off " + round);
                busyNs += System.nanoTime() - start;
                qp.postRecv(recv.wrId(round + 1));
                final WorkCompletion ready = await(recvCq, wc, "the decode side's credit for hand-off " + round);
                if (WcOpcode.RECV != ready.opcode() || round != credit.buffer().getLong(0))
                {
                    throw new IllegalStateException("hand-off " + round + ": expected its credit, got " + ready);
                }
            }
            cm.expect(id, RdmaCmEventType.DISCONNECTED, WAIT_NS);
            return new Result(shape.bytesPerRound() * shape.rounds(), busyNs, shape.rounds(), shape.pages(),
                shape.pageSize(), device.counters().get(TransportCounter.PACKETS_RETRANSMITTED));
        }
    }

    /**
     * The page contents of a hand-off: 8-byte words that depend on the hand-off, the page and the word's place, so
     * a page written to the wrong place, twice, half or not at all shows.
     */
    static long word(final int round, final int page, final int index)
    {
        long z = ((long)round << 40) ^ ((long)page << 20) ^ index;
        // SplitMix64's finaliser: every input bit changes about half the output bits.
        z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D0_49BB_1331_11EBL;
        return z ^ (z >>> 31);
    }

    private static void fill(final AtomicBuffer buffer, final int round, final Settings shape)
    {
        final int words = shape.pageSize() / Long.BYTES;
        for (int page = 0; page < shape.pages(); page++)
        {
            final int base = page * shape.pageSize();
            for (int i = 0; i < words; i++)
            {
                buffer.putLong(base + i * Long.BYTES, word(round, page, i), ByteOrder.LITTLE_ENDIAN);
            }
        }
    }

    private static void verify(final AtomicBuffer buffer, final int round, final Settings shape)
    {
        final int words = shape.pageSize() / Long.BYTES;
        for (int page = 0; page < shape.pages(); page++)
        {
            final int base = page * shape.pageSize();
            for (int i = 0; i < words; i++)
            {
                if (word(round, page, i) != buffer.getLong(base + i * Long.BYTES, ByteOrder.LITTLE_ENDIAN))
                {
                    throw new IllegalStateException("hand-off " + round + ": page " + page + " differs at byte " +
                        i * Long.BYTES);
                }
            }
        }
    }

    private static WorkCompletion await(final CompletionQueue cq, final WorkCompletion[] wc, final String what)
    {
        if (1 != cq.pollBlocking(wc, WAIT_NS))
        {
            throw new IllegalStateException("no completion for " + what + ":\n" + cq.device().describeCounters());
        }
        if (WcStatus.SUCCESS != wc[0].status())
        {
            throw new IllegalStateException(what + " failed: " + wc[0]);
        }
        return wc[0];
    }

    private static String defaultLink(final String role)
    {
        return "decode".equals(role) ? "memory:10.0.3.1,mtu=9000" : "memory:10.0.3.2,mtu=9000";
    }

    private static Settings parse(final String[] args, final String defaultLink)
    {
        String link = defaultLink;
        String server = "10.0.3.1";
        int port = DEFAULT_PORT;
        int pages = 64;
        int pageSize = 64 * 1024;
        int rounds = 20;
        for (int i = 0; i < args.length; i++)
        {
            if (!args[i].startsWith("--"))
            {
                continue;
            }
            if (i + 1 >= args.length)
            {
                throw new IllegalArgumentException(args[i] + " needs a value");
            }
            final String value = args[++i];
            switch (args[i - 1])
            {
                case "--link" -> link = value;
                case "--server" -> server = value;
                case "--port" -> port = Integer.parseInt(value);
                case "--pages" -> pages = Integer.parseInt(value);
                case "--page-size" -> pageSize = Integer.parseInt(value);
                case "--rounds" -> rounds = Integer.parseInt(value);
                default -> throw new IllegalArgumentException("unknown option " + args[i - 1] + " (--link, --server, " +
                    "--port, --pages, --page-size, --rounds)");
            }
        }
        if (pages < 1 || pages > MAX_PAGES || pageSize < Long.BYTES || 0 != pageSize % Long.BYTES ||
            (long)pages * pageSize > Integer.MAX_VALUE || rounds < 1)
        {
            throw new IllegalArgumentException("need 1 <= pages <= " + MAX_PAGES +
                ", a page size that is a multiple of 8, pages x page " +
                "size < 2 GiB and rounds >= 1");
        }
        return new Settings(link, server, port, pages, pageSize, rounds);
    }
}
