package org.roce4j.cm.perftest;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * perftest's parameter negotiation (negotiate_params in perftest_communication.c, perftest commit 5453511, version
 * 6.28 and later): after the MTU exchange each side sends its {@code struct perftest_parameters_negotiate} in one
 * exchange (the client writes first) and both compare it field by field; the first field that differs is printed as
 * {@code " <name> mismatch: local=<x>, remote=<y>"} and the tool ends with " Failed to negotiate parameters".
 *
 * <p>The struct as x86-64 compilers lay it out (offsets checked against gcc):
 * <pre>
 *   0 test_method   4 connection_type   8 verb   12 tst   16 atomicType   20 test_type   24 report_fmt  (int, htonl)
 *  28 (4 bytes of padding: the next field is 8-byte aligned)
 *  32 size   40 iters                                                                              (uint64, hton_64)
 *  48 aes_xts  52 num_of_qps  56 duration  60 use_rdma_cm  64 use_write_with_imm  68 no_enhanced_reorder
 *  72 sig_offload  76 data_validation                                                                (int, htonl)
 *  80 struct ibv_device_attr, 232 bytes, in the sender's HOST order (perftest does not convert it; x86: little
 *     endian); only max_qp_rd_atom (at 80 + 64) is read by the peer (compare_ibv_device caps out_reads with it)
 * 312 mlx5dv_comp_mask (uint64), present only when perftest was built with mlx5dv (HAVE_MLX5DV: Debian's, Ubuntu's
 *     and NVIDIA's x86-64 builds), so the struct is 320 bytes there and 312 elsewhere
 * </pre>
 * Both sides decide from the version the other announced: a side negotiates when the peer's version is 6.28 or
 * later ({@code if (atof(rem_version) < 6.28) return SUCCESS}). roce4j announces 6.06 unless told otherwise, so a
 * newer perftest skips the step; {@link PerftestVersion#negotiates} says when both sides run it.
 */
public final class PerftestNegotiation
{
    /** sizeof(struct perftest_parameters_negotiate) on x86-64 with mlx5dv (the struct ends with a uint64). */
    public static final int LENGTH_MLX5DV = 320;
    /** The same without mlx5dv. */
    public static final int LENGTH_PLAIN = 312;
    /** Offset of the embedded struct ibv_device_attr. */
    static final int ATTR_OFFSET = 80;
    /** sizeof(struct ibv_device_attr) on x86-64 (libibverbs/verbs.h). */
    static final int ATTR_LENGTH = 232;
    /** Offset of max_qp_rd_atom inside struct ibv_device_attr (after fw_ver[64], 4 uint64, 3 uint32, 9 ints). */
    static final int ATTR_MAX_QP_RD_ATOM = 144 - ATTR_OFFSET;
    /** Offset of vendor_id inside struct ibv_device_attr (after fw_ver[64] and four uint64). */
    static final int ATTR_VENDOR_ID = 96;
    /** Bytes of fw_ver. */
    static final int FW_VER_LENGTH = 64;

    /** The names perftest prints for each enumerated field, indexed by value (the COMPARE table's arrays). */
    static final List<String> TEST_METHOD = List.of("RUN_REGULAR", "RUN_ALL", "RUN_INFINITELY");
    static final List<String> CONNECTION_TYPE = List.of("RC", "UC", "UD", "RawEth", "XRC", "DC", "SRD");
    static final List<String> VERB = List.of("SEND", "SEND_IMM", "WRITE", "WRITE_IMM", "READ", "ATOMIC");
    static final List<String> TST = List.of("LAT", "BW", "LAT_BY_BW", "FS_RATE");
    static final List<String> ATOMIC_TYPE = List.of("CMP_AND_SWAP", "FETCH_AND_ADD");
    static final List<String> TEST_TYPE = List.of("ITERATIONS", "DURATION");
    static final List<String> REPORT_FMT = List.of("GBS", "MBS");
    static final List<String> OFF_ON = List.of("OFF", "ON");

    /** The compared fields in perftest's order: name, offset, width (4 or 8), names of the values or null. */
    private static final Field[] FIELDS = {
        new Field("test_method", 0, 4, TEST_METHOD),
        new Field("connection_type", 4, 4, CONNECTION_TYPE),
        new Field("verb", 8, 4, VERB),
        new Field("tst", 12, 4, TST),
        new Field("atomicType", 16, 4, ATOMIC_TYPE),
        new Field("test_type", 20, 4, TEST_TYPE),
        new Field("report_fmt", 24, 4, REPORT_FMT),
        new Field("size", 32, 8, null),
        new Field("iters", 40, 8, null),
        new Field("aes_xts", 48, 4, OFF_ON),
        new Field("num_of_qps", 52, 4, null),
        new Field("duration", 56, 4, null),
        new Field("use_rdma_cm", 60, 4, OFF_ON),
        new Field("use_write_with_imm", 64, 4, OFF_ON),
        new Field("no_enhanced_reorder", 68, 4, OFF_ON),
        new Field("sig_offload", 72, 4, OFF_ON),
        new Field("data_validation", 76, 4, OFF_ON)};

    private final byte[] bytes;

    private PerftestNegotiation(final byte[] bytes)
    {
        this.bytes = bytes;
    }

    /**
     * This side's struct, with the values of perftest's parser for the same command line.
     *
     * @param p      the test's parameters as perftest resolves them.
     * @param mlx5dv true for the 320-byte layout of an mlx5dv build.
     * @return the struct.
     */
    public static PerftestNegotiation of(final Params p, final boolean mlx5dv)
    {
        final ByteBuffer b = ByteBuffer.allocate(mlx5dv ? LENGTH_MLX5DV : LENGTH_PLAIN).order(ByteOrder.BIG_ENDIAN);
        b.putInt(0, p.testMethod).putInt(4, p.connectionType).putInt(8, p.verb).putInt(12, p.tst)
            .putInt(16, p.atomicType).putInt(20, p.testType).putInt(24, p.reportFmt)
            .putLong(32, p.size).putLong(40, p.iters)
            .putInt(48, 0).putInt(52, p.numOfQps).putInt(56, p.duration).putInt(60, p.useRdmaCm ? 1 : 0)
            .putInt(64, 0).putInt(68, 0).putInt(72, 0).putInt(76, 0);
        // struct ibv_device_attr in host (x86: little-endian) order, as ibv_query_device filled it.
        final ByteBuffer attr = b.slice(ATTR_OFFSET, ATTR_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        final byte[] fw = p.firmwareVersion.getBytes(StandardCharsets.US_ASCII);
        attr.put(0, fw, 0, Math.min(fw.length, FW_VER_LENGTH - 1));
        attr.putInt(ATTR_VENDOR_ID, p.vendorId);
        attr.putInt(ATTR_MAX_QP_RD_ATOM, p.maxQpRdAtom);
        return new PerftestNegotiation(b.array());
    }

    /**
     * The peer's struct as received.
     *
     * @param bytes {@link #LENGTH_MLX5DV} or {@link #LENGTH_PLAIN} bytes.
     * @return the struct.
     * @throws IllegalArgumentException for any other length.
     */
    public static PerftestNegotiation decode(final byte[] bytes)
    {
        if (LENGTH_MLX5DV != bytes.length && LENGTH_PLAIN != bytes.length)
        {
            throw new IllegalArgumentException("perftest's negotiation struct is " + LENGTH_MLX5DV + " bytes (" +
                LENGTH_PLAIN + " without mlx5dv), got " + bytes.length);
        }
        return new PerftestNegotiation(bytes.clone());
    }

    /**
     * @return the bytes to send.
     */
    public byte[] encode()
    {
        return bytes.clone();
    }

    /**
     * @return the sender's max_qp_rd_atom (read in x86's host order, as perftest reads it).
     */
    public int maxQpRdAtom()
    {
        return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getInt(ATTR_OFFSET + ATTR_MAX_QP_RD_ATOM);
    }

    /**
     * Compare as negotiate_params does, field by field in its order.
     *
     * @param remote the peer's struct.
     * @return null when every compared field agrees, else the line perftest prints for the first that differs,
     *         e.g. {@code " verb mismatch: local=WRITE, remote=READ"}.
     */
    public String firstMismatch(final PerftestNegotiation remote)
    {
        final ByteBuffer mine = ByteBuffer.wrap(bytes);
        final ByteBuffer theirs = ByteBuffer.wrap(remote.bytes);
        for (final Field f : FIELDS)
        {
            final long local = 8 == f.width ? mine.getLong(f.offset) : mine.getInt(f.offset);
            final long peer = 8 == f.width ? theirs.getLong(f.offset) : theirs.getInt(f.offset);
            if (local != peer)
            {
                return " " + f.name + " mismatch: local=" + f.text(local) + ", remote=" + f.text(peer);
            }
        }
        return null;
    }

    private record Field(String name, int offset, int width, List<String> names)
    {
        String text(final long value)
        {
            return null != names && value >= 0 && value < names.size() ?
                names.get((int)value) : Long.toUnsignedString(value);
        }
    }

    /**
     * The negotiated values, as perftest's parser leaves them (init_perftest_params and the checks after it).
     *
     * @param testMethod      0 RUN_REGULAR, 1 RUN_ALL (-a), 2 RUN_INFINITELY (--run_infinitely).
     * @param connectionType  0 RC, 1 UC, 2 UD (-c).
     * @param verb            0 SEND, 1 SEND_IMM, 2 WRITE, 3 WRITE_IMM, 4 READ, 5 ATOMIC (the tool).
     * @param tst             0 LAT, 1 BW (the tool).
     * @param atomicType      0 CMP_AND_SWAP, 1 FETCH_AND_ADD: -A for ib_atomic_*, else 0 (the struct is zeroed).
     * @param testType        0 ITERATIONS, 1 DURATION (-D).
     * @param reportFmt       0 GBS (--report_gbits), 1 MBS.
     * @param size            -s, or 8388608 (MAX_SIZE) with -a.
     * @param iters           -n, or 5000 (write_bw) / 1000 by default, 0 with -D.
     * @param numOfQps        -q.
     * @param duration        -D, 5 (DEF_DURATION) when not given.
     * @param useRdmaCm       -R.
     * @param firmwareVersion this side's fw_ver (informational).
     * @param vendorId        this side's vendor_id (perftest compares mlx5dv masks only when it is Mellanox's).
     * @param maxQpRdAtom     this side's max_qp_rd_atom: the peer caps its out_reads with it.
     */
    public record Params(int testMethod, int connectionType, int verb, int tst, int atomicType, int testType,
        int reportFmt, long size, long iters, int numOfQps, int duration, boolean useRdmaCm, String firmwareVersion,
        int vendorId, int maxQpRdAtom)
    {
    }
}
