package org.roce4j.transport.link;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Loss and reordering on the egress of one interface inside a {@link NetworkNamespace}, for tests that must see
 * the engine recover from a real lossy network: {@value #LOSS_PERCENT}% of packets lost and about
 * {@value #REORDER_PERCENT}% sent out of order.
 *
 * <p>Where the kernel has {@code sch_netem}, that is
 * {@code tc qdisc add dev DEV root netem loss 2% delay 1ms reorder 25% 50%}: a quarter of the packets (correlated
 * 50%) go at once, the rest 1 ms later, so the quick ones overtake the delayed ones (netem's own reordering
 * recipe). No jitter: with {@code delay 1ms 2ms} netem reorders almost every packet by its random delay, and RC's
 * go-back-N, which accepts only the next PSN, then advances a few packets per round trip (rxe and RoCE NICs as
 * much as roce4j: RoCE expects an in-order fabric). Kernels built without netem
 * (this project's 2-core VM) get the same two effects from stock parts, {@link Kind#HTB_EMULATION}:
 * <pre>
 * htb 1: (default 1:1)
 *  +- 1:1  10 Gbit/s                       everything else
 *  +- 1:2  pfifo limit 0                   every packet classified here is dropped: the loss
 *  +- 1:3  50 Mbit/s, 1600-byte burst      packets wait for tokens (a 4 KiB frame about 0.4 ms) while later
 *                                          packets of 1:1 pass them: the reordering
 * classifier: cls_bpf running a classic BPF program that sends RoCEv2 packets (IPv4, UDP destination port 4791)
 *             to 1:2 or 1:3 by a random number (the SKF_AD_RANDOM ancillary load)
 * </pre>
 * Both act on the sender's egress, before any capture sees the frame, so a pcap receiver cannot see lost frames
 * (an ingress rule would act after the packet taps). The zero-length FIFO reports its drops to the sending
 * socket: a pcap link counts them as SEND_ERRORS, a UDP socket ignores them (ENOBUFS without IP_RECVERR); netem
 * hides its losses from the sender as a wire would. The kernel's random numbers are not seeded: tests assert
 * what must hold whatever is lost. {@code -Droce4j.vethImpairment=htb} uses the emulation even where netem exists.
 */
public final class VethImpairment
{
    /** Packets lost, percent. */
    public static final int LOSS_PERCENT = 2;
    /** Packets sent out of order, percent (netem: sent at once, ahead of delayed ones; emulation: held back). */
    public static final int REORDER_PERCENT = 25;

    /** Which mechanism impairs the interface. */
    public enum Kind
    {
        /** The kernel's network emulator. */
        NETEM,
        /** HTB classes, a zero-length FIFO and a classic BPF classifier (no netem in this kernel). */
        HTB_EMULATION
    }

    /** System property choosing the mechanism: {@code htb} forces the emulation, anything else prefers netem. */
    public static final String MECHANISM_PROPERTY = "roce4j.vethImpairment";

    /** tc's answer when a qdisc kind is not built into (or loadable by) the kernel. */
    private static final String UNKNOWN_QDISC = "Specified qdisc kind is unknown";
    /** 2^32, the range of SKF_AD_RANDOM. */
    private static final long RANDOM_RANGE = 1L << 32;
    /** Classic BPF ancillary load of a random 32-bit number: SKF_AD_OFF (-0x1000) + SKF_AD_RANDOM (56). */
    private static final long SKF_AD_RANDOM = 0xFFFF_F000L + 56;
    /** Classic BPF opcodes (linux/bpf_common.h): BPF_LD|BPF_H|BPF_ABS, BPF_LD|BPF_B|BPF_ABS, BPF_LD|BPF_W|BPF_ABS. */
    private static final int LDH_ABS = 0x28;
    private static final int LDB_ABS = 0x30;
    private static final int LD_ABS = 0x20;
    /** BPF_JMP|BPF_JEQ|BPF_K, BPF_JMP|BPF_JGT|BPF_K, BPF_RET|BPF_K. */
    private static final int JEQ = 0x15;
    private static final int JGT = 0x25;
    private static final int RET = 0x06;
    /** Offsets in an untagged Ethernet frame with a 20-byte IPv4 header (RoCEv2 never sends IPv4 options). */
    private static final int ETHERTYPE_OFFSET = 12;
    private static final int IP_PROTOCOL_OFFSET = 14 + 9;
    private static final int UDP_DESTINATION_OFFSET = 14 + 20 + 2;
    private static final int ETHERTYPE_IPV4 = 0x0800;
    private static final int PROTOCOL_UDP = 17;
    private static final int ROCE_V2_PORT = 4791;
    /** tc class ids as cls_bpf returns them: major 1 in the high 16 bits, minor in the low. */
    private static final int CLASS_PASS = 0x1_0001;
    private static final int CLASS_DROP = 0x1_0002;
    private static final int CLASS_SLOW = 0x1_0003;
    private static final Pattern DROPPED = Pattern.compile("dropped (\\d+)");

    private final NetworkNamespace namespace;
    private final String device;
    private final Kind kind;

    private VethImpairment(final NetworkNamespace namespace, final String device, final Kind kind)
    {
        this.namespace = namespace;
        this.device = device;
        this.kind = kind;
    }

    /**
     * Impair an interface's egress: netem when the kernel has it (unless {@value #MECHANISM_PROPERTY}=htb), else
     * the HTB emulation.
     *
     * @param namespace holding the interface.
     * @param device    interface name.
     * @return the impairment, to read its drop count and remove it.
     */
    public static VethImpairment apply(final NetworkNamespace namespace, final String device)
    {
        if (!"htb".equals(System.getProperty(MECHANISM_PROPERTY)))
        {
            try
            {
                namespace.exec("tc", "qdisc", "add", "dev", device, "root", "netem", "loss", LOSS_PERCENT + "%",
                    "delay", "1ms", "reorder", REORDER_PERCENT + "%", "50%");
                return new VethImpairment(namespace, device, Kind.NETEM);
            }
            catch (final IllegalStateException ex)
            {
                if (!String.valueOf(ex.getMessage()).contains(UNKNOWN_QDISC))
                {
                    throw ex;
                }
            }
        }
        // Classes 1:1 and 1:2 run at 10 Gbit/s, never the bottleneck of a test. Quantum 60,000 bytes: any value
        // above the largest frame works, and HTB's default (rate / r2q) is far too big at 10 Gbit/s (a warning).
        namespace.exec("tc", "qdisc", "add", "dev", device, "root", "handle", "1:", "htb", "default", "1");
        namespace.exec("tc", "class", "add", "dev", device, "parent", "1:", "classid", "1:1", "htb", "rate",
            "10gbit", "quantum", "60000");
        namespace.exec("tc", "class", "add", "dev", device, "parent", "1:", "classid", "1:2", "htb", "rate",
            "10gbit", "quantum", "60000");
        namespace.exec("tc", "qdisc", "add", "dev", device, "parent", "1:2", "handle", "20:", "pfifo", "limit",
            "0");
        namespace.exec("tc", "class", "add", "dev", device, "parent", "1:", "classid", "1:3", "htb", "rate",
            "50mbit", "ceil", "50mbit", "burst", "1600", "cburst", "1600", "quantum", "60000");
        namespace.exec("tc", "filter", "add", "dev", device, "parent", "1:", "protocol", "all", "prio", "1",
            "bpf", "bytecode", classifier());
        return new VethImpairment(namespace, device, Kind.HTB_EMULATION);
    }

    /**
     * @return the classic BPF classifier in tc's {@code bytecode} syntax: "count,code jt jf k,...".
     */
    static String classifier()
    {
        final long lossBelow = RANDOM_RANGE * LOSS_PERCENT / 100;
        final long slowBelow = RANDOM_RANGE * (LOSS_PERCENT + REORDER_PERCENT) / 100;
        // Jump offsets count instructions skipped: target = next instruction + offset.
        final long[][] program = {
            {LDH_ABS, 0, 0, ETHERTYPE_OFFSET},            // 0
            {JEQ, 0, 10, ETHERTYPE_IPV4},                 // 1: not IPv4 -> 12
            {LDB_ABS, 0, 0, IP_PROTOCOL_OFFSET},          // 2
            {JEQ, 0, 8, PROTOCOL_UDP},                    // 3: not UDP -> 12
            {LDH_ABS, 0, 0, UDP_DESTINATION_OFFSET},      // 4
            {JEQ, 0, 6, ROCE_V2_PORT},                    // 5: not RoCEv2 -> 12
            {LD_ABS, 0, 0, SKF_AD_RANDOM},                // 6: A = random
            {JGT, 1, 0, lossBelow - 1},                   // 7: A >= lossBelow -> 9
            {RET, 0, 0, CLASS_DROP},                      // 8
            {JGT, 1, 0, slowBelow - 1},                   // 9: A >= slowBelow -> 11
            {RET, 0, 0, CLASS_SLOW},                      // 10
            {RET, 0, 0, CLASS_PASS},                      // 11
            {RET, 0, 0, CLASS_PASS},                      // 12
        };
        final StringBuilder text = new StringBuilder().append(program.length);
        for (final long[] instruction : program)
        {
            text.append(',').append(instruction[0]).append(' ').append(instruction[1]).append(' ')
                .append(instruction[2]).append(' ').append(instruction[3]);
        }
        return text.toString();
    }

    /**
     * @return which mechanism is in place.
     */
    public Kind kind()
    {
        return kind;
    }

    /**
     * @return packets the impairment dropped so far (the root qdisc's drop count, children included).
     */
    public long droppedPackets()
    {
        final String stats = namespace.exec("tc", "-s", "qdisc", "show", "dev", device);
        final Matcher matcher = DROPPED.matcher(stats);
        if (!matcher.find())
        {
            throw new IllegalStateException("no drop count in tc statistics of " + device + ": " + stats);
        }
        // The first qdisc listed is the root, whose statistics include its children's drops.
        return Long.parseLong(matcher.group(1));
    }

    /**
     * Remove the impairment (the interface gets its default qdisc back).
     */
    public void remove()
    {
        namespace.exec("tc", "qdisc", "del", "dev", device, "root");
    }

    /**
     * @return e.g. {@code netem on rvl: loss 2%, reorder 25%}.
     */
    public String toString()
    {
        return kind + " on " + device + ": loss " + LOSS_PERCENT + "%, reorder " + REORDER_PERCENT + "%";
    }
}
