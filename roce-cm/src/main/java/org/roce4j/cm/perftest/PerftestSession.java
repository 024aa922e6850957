package org.roce4j.cm.perftest;

import java.io.EOFException;
import java.io.IOException;
import java.time.Duration;

import org.roce4j.cm.oob.OobProtocolException;
import org.roce4j.cm.oob.RetryDeadline;

/**
 * perftest's out-of-band protocol as Debian's perftest 4.5+0.17 (version 6.06) speaks it without -R, both roles,
 * over any {@link PerftestChannel}. The steps, in the order every tool's main() runs them:
 * <ol>
 *   <li>{@link #open}: connect and exchange versions (exchange_versions, check_version_compatibility);</li>
 *   <li>{@link #exchangeSysData}: page size and cache line size, both keep the larger (check_sys_data);</li>
 *   <li>{@link #exchangeMtu}: the active MTU as its ibv_mtu number in ASCII, both keep the smaller (check_mtu);</li>
 *   <li>{@link #negotiate}: perftest 6.28's parameter negotiation, when both sides announced 6.28 or later
 *   ({@link #negotiates()});</li>
 *   <li>{@link #exchangeDests}: one QP record per QP (the ctx_hand_shake loop); the tools then connect their QPs,
 *   exchange the records once more and hand-shake on record 0 as barriers ({@link #handShake});</li>
 *   <li>after the run, in one-way BW tests, a handshake and the client's report ({@link #exchangeReport});</li>
 *   <li>{@link #close}: a last handshake and, over TCP, {@code "done"} (ctx_close_connection).</li>
 * </ol>
 * Which barriers a tool adds where (per message size, before and after the run) is the tool's business: the caller
 * runs them in its tool's order. In each exchange the client writes first.
 */
public final class PerftestSession implements AutoCloseable
{
    /** The MTU field on the wire: the ASCII digit of the ibv_mtu enum and a NUL (sizeof(char[2]) from 5.31). */
    static final int MTU_FIELD_BYTES = 2;
    /** Pause between attempts when the peer closed before answering (QEMU's port forwarding does). */
    private static final long RETRY_PAUSE_NS = 50_000_000L;

    private final PerftestChannel channel;
    private final String localVersion;
    private final String peerVersion;

    private PerftestSession(final PerftestChannel channel, final String localVersion, final String peerVersion)
    {
        this.channel = channel;
        this.localVersion = localVersion;
        this.peerVersion = peerVersion;
    }

    /**
     * Connect and exchange versions. A client whose connection is closed by the peer before its version arrives
     * retries on a new connection for up to {@code retryFor}: QEMU's port forwarding accepts and closes connections
     * while nothing listens in the guest yet.
     *
     * @param connector    opens the channel.
     * @param localVersion the version to announce ({@link PerftestVersion#LOCAL}).
     * @param retryFor     how long a client retries a connection closed before the first answer.
     * @return the session, versions exchanged and compatible.
     * @throws PerftestVersionException naming the peer's version when roce4j does not speak it.
     * @throws IOException              when the exchange fails.
     */
    public static PerftestSession open(
        final PerftestConnector connector, final String localVersion, final Duration retryFor) throws IOException
    {
        final byte[] local = PerftestVersion.encode(localVersion);
        final RetryDeadline retry = RetryDeadline.after(retryFor, RETRY_PAUSE_NS);
        while (true)
        {
            final PerftestChannel channel = connector.connect();
            try
            {
                final String peer = PerftestVersion.decode(channel.exchange(local));
                PerftestVersion.checkCompatible(peer);
                return new PerftestSession(channel, localVersion, peer);
            }
            catch (final EOFException ex)
            {
                channel.close();
                if (!channel.isClient() || retry.expired())
                {
                    throw new OobProtocolException("perftest exchange with " + channel.peer() + " failed: " +
                        ex.getMessage(), ex);
                }
                retry.pause();
            }
            catch (final IOException | RuntimeException ex)
            {
                channel.close();
                throw ex;
            }
        }
    }

    /**
     * Start a session on a channel whose versions were already exchanged some other way (or not at all, as
     * perftest's --dont_xchg_versions).
     *
     * @param channel     the channel.
     * @param peerVersion the version to assume for the peer.
     * @return the session.
     * @throws PerftestVersionException when the version is not one roce4j speaks.
     */
    public static PerftestSession assume(final PerftestChannel channel, final String peerVersion)
        throws PerftestVersionException
    {
        PerftestVersion.checkCompatible(peerVersion);
        return new PerftestSession(channel, PerftestVersion.LOCAL, peerVersion);
    }

    /**
     * @return the peer's version text.
     */
    public String peerVersion()
    {
        return peerVersion;
    }

    /**
     * @return the channel.
     */
    public PerftestChannel channel()
    {
        return channel;
    }

    /**
     * @return true for the side that connected.
     */
    public boolean isClient()
    {
        return channel.isClient();
    }

    /**
     * check_sys_data: exchange the page size (4 bytes, big-endian) and then the cache line size; both sides keep the
     * larger of each.
     *
     * @param local this side's values.
     * @return the agreed values.
     * @throws IOException when the exchange fails or the peer sends a value that is not positive.
     */
    public PerftestSysData exchangeSysData(final PerftestSysData local) throws IOException
    {
        final int cycleBuffer = readInt(channel.exchange(intBytes(local.cycleBuffer())));
        final int cacheLine = readInt(channel.exchange(intBytes(local.cacheLineSize())));
        if (cycleBuffer <= 0 || cacheLine <= 0)
        {
            throw new OobProtocolException("the peer sent a page size of " + cycleBuffer + " and a cache line size " +
                "of " + cacheLine + "; both must be positive");
        }
        return new PerftestSysData(Math.max(cycleBuffer, local.cycleBuffer()),
            Math.max(cacheLine, local.cacheLineSize()));
    }

    /**
     * check_mtu: exchange the MTU as the decimal digit of its ibv_mtu number (1 = 256 ... 5 = 4096) and a NUL; both
     * sides keep the smaller. A peer number outside 1..5 is ignored, as perftest ignores it.
     *
     * @param localIbvMtu this side's ibv_mtu number, 1..5.
     * @return the agreed ibv_mtu number.
     * @throws IOException when the exchange fails or the field is not a digit and a NUL.
     */
    public int exchangeMtu(final int localIbvMtu) throws IOException
    {
        if (localIbvMtu < 1 || localIbvMtu > 5)
        {
            throw new IllegalArgumentException("an ibv_mtu number is 1 (256) .. 5 (4096), got " + localIbvMtu);
        }
        final byte[] mine = {(byte)('0' + localIbvMtu), 0};
        final byte[] theirs = channel.exchange(mine);
        if (theirs[0] < '0' || theirs[0] > '9' || 0 != theirs[1])
        {
            throw new OobProtocolException("the peer's MTU field must be a digit and a NUL, got " +
                PerftestVersion.hex(theirs));
        }
        final int remote = theirs[0] - '0';
        return remote >= 1 && remote <= 5 ? Math.min(remote, localIbvMtu) : localIbvMtu;
    }

    /**
     * @return true when both sides announced 6.28 or later, so both run {@link #negotiate} after the MTU exchange.
     * @throws PerftestVersionException never for an open session (both versions were checked).
     */
    public boolean negotiates() throws PerftestVersionException
    {
        return PerftestVersion.negotiates(localVersion, peerVersion);
    }

    /**
     * negotiate_params: exchange the parameter structs and compare them as perftest does.
     *
     * @param local this side's struct; the peer's must have the same length (320 bytes from an mlx5dv build).
     * @return the peer's struct, every compared field equal to this side's.
     * @throws IOException when the exchange fails, or, naming the first field that differs in perftest's words
     *                     ({@code " verb mismatch: local=WRITE, remote=READ"}), when the parameters differ.
     */
    public PerftestNegotiation negotiate(final PerftestNegotiation local) throws IOException
    {
        final PerftestNegotiation remote = PerftestNegotiation.decode(channel.exchange(local.encode()));
        final String mismatch = local.firstMismatch(remote);
        if (null != mismatch)
        {
            throw new OobProtocolException(mismatch.trim() + "\n Failed to negotiate parameters");
        }
        return remote;
    }

    /**
     * The per-QP record loop (ctx_hand_shake for each QP in order).
     *
     * @param local this side's records, one per QP.
     * @return the peer's, in the same order.
     * @throws IOException when an exchange fails.
     */
    public PerftestDest[] exchangeDests(final PerftestDest[] local) throws IOException
    {
        final PerftestDest[] remote = new PerftestDest[local.length];
        for (int i = 0; i < local.length; i++)
        {
            remote[i] = channel.exchangeDest(local[i]);
        }
        return remote;
    }

    /**
     * One barrier (ctx_hand_shake on QP 0's records).
     *
     * @param local this side's record 0.
     * @return the peer's record.
     * @throws IOException when the exchange fails.
     */
    public PerftestDest handShake(final PerftestDest local) throws IOException
    {
        return channel.exchangeDest(local);
    }

    /**
     * xchg_bw_reports: the five fields of a bandwidth report, each its own exchange.
     *
     * @param local this side's report (a one-way server sends zeros; perftest sends uninitialised memory).
     * @return the peer's.
     * @throws IOException when an exchange fails.
     */
    public PerftestReport exchangeReport(final PerftestReport local) throws IOException
    {
        final byte[][] fields = new byte[PerftestReport.FIELDS][];
        for (int i = 0; i < PerftestReport.FIELDS; i++)
        {
            fields[i] = channel.exchange(local.field(i));
        }
        return PerftestReport.fromFields(fields);
    }

    /**
     * @param timeout longest wait for each following read, e.g. for a handshake the peer reaches only after its run.
     * @throws IOException when the channel refuses it.
     */
    public void readTimeout(final Duration timeout) throws IOException
    {
        channel.readTimeout(timeout);
    }

    /**
     * ctx_close_connection: a last handshake, then the channel's closing step, then close.
     *
     * @param local this side's record 0.
     * @throws IOException when the handshake fails.
     */
    public void close(final PerftestDest local) throws IOException
    {
        try
        {
            channel.exchangeDest(local);
            channel.finish();
        }
        finally
        {
            channel.close();
        }
    }

    /**
     * Close the channel without the closing handshake (after an error, or for ib_write_lat, which never sends it).
     *
     * @throws IOException when closing fails.
     */
    public void close() throws IOException
    {
        channel.close();
    }

    private static byte[] intBytes(final int value)
    {
        return new byte[] {(byte)(value >>> 24), (byte)(value >>> 16), (byte)(value >>> 8), (byte)value};
    }

    private static int readInt(final byte[] bytes)
    {
        return ((bytes[0] & 0xFF) << 24) | ((bytes[1] & 0xFF) << 16) | ((bytes[2] & 0xFF) << 8) | (bytes[3] & 0xFF);
    }
}
