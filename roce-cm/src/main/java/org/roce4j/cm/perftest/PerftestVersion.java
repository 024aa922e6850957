package org.roce4j.cm.perftest;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The version string perftest's tools exchange first (exchange_versions in perftest_communication.c): a
 * {@code char version[MAX_VERSION]} of 16 bytes, the ASCII version followed by NULs, e.g. {@code "6.06"} from
 * Debian's perftest 4.5+0.17 (its configure.ac AC_INIT version).
 *
 * <p>What the version decides, as perftest reads it with {@code atof()}:
 * <ul>
 *   <li>below 5.70 perftest itself refuses the peer (check_version_compatibility);</li>
 *   <li>5.32 and up exchange the system data (cycle buffer, cache line), 5.31 and up a 2-byte MTU, 5.33 and up an
 *   8-byte iteration count in the reports: all true from 5.70 on;</li>
 *   <li>from 6.28 perftest adds a binary parameter negotiation ({@link PerftestNegotiation}) between the MTU
 *   exchange and the per-QP records, which each side runs only when the OTHER side's version is 6.28 or later: a
 *   perftest of 6.28 or later that hears roce4j's 6.06 skips it, and roce4j, announcing 6.28 or later, speaks it
 *   ({@link #negotiates}). 6.07 to 6.27 differ from 6.06 only in not sending the closing {@code "done"} (perftest
 *   commit dbf395e), which roce4j tolerates.</li>
 * </ul>
 * So roce4j speaks to every peer version from 5.70 on; an older or malformed one is a {@link PerftestVersionException}
 * naming it.
 */
public final class PerftestVersion
{
    /** Bytes of the version field on the wire (MAX_VERSION in perftest_parameters.h). */
    public static final int LENGTH = 16;
    /** The version roce4j announces: perftest 4.5+0.17's, whose exchange it implements. */
    public static final String LOCAL = "6.06";
    /** Oldest peer version perftest accepts (check_version_compatibility). */
    public static final double MIN_COMPATIBLE = 5.70;
    /** First version with the binary parameter negotiation (perftest commit 5453511, "Add parameter negotiation
     * phase"). */
    public static final double FIRST_NEGOTIATING = 6.28;

    private PerftestVersion()
    {
    }

    /**
     * @param version e.g. {@code "6.06"}: 1 to 15 ASCII characters.
     * @return the 16 bytes perftest sends: the text, then NULs.
     * @throws IllegalArgumentException when the text does not fit or is not printable ASCII.
     */
    public static byte[] encode(final String version)
    {
        final byte[] ascii = version.getBytes(StandardCharsets.US_ASCII);
        if (0 == ascii.length || ascii.length >= LENGTH || !isPrintable(ascii, ascii.length))
        {
            throw new IllegalArgumentException("a perftest version is 1.." + (LENGTH - 1) + " printable ASCII " +
                "characters, got '" + version + "'");
        }
        final byte[] bytes = new byte[LENGTH];
        System.arraycopy(ascii, 0, bytes, 0, ascii.length);
        return bytes;
    }

    /**
     * @param bytes the 16 received bytes.
     * @return the version text (up to the first NUL).
     * @throws PerftestVersionException when the field is not a NUL-terminated printable string.
     */
    public static String decode(final byte[] bytes) throws PerftestVersionException
    {
        if (LENGTH != bytes.length)
        {
            throw new PerftestVersionException("the perftest version field is " + LENGTH + " bytes, got " +
                bytes.length);
        }
        int end = 0;
        while (end < LENGTH && 0 != bytes[end])
        {
            end++;
        }
        if (LENGTH == end || 0 == end || !isPrintable(bytes, end))
        {
            throw new PerftestVersionException("the peer sent no perftest version string (first bytes " +
                hex(bytes) + "); is it a perftest tool, and run without -R on both sides?");
        }
        return new String(bytes, 0, end, StandardCharsets.US_ASCII);
    }

    /**
     * Parse a version as a number, strictly: digits, a dot, digits.
     *
     * @param version e.g. {@code "6.06"}.
     * @return its value, compared as perftest compares {@code atof()} results.
     * @throws PerftestVersionException when it is not of that form.
     */
    public static double value(final String version) throws PerftestVersionException
    {
        if (!version.matches("[0-9]{1,4}\\.[0-9]{1,4}"))
        {
            throw new PerftestVersionException("unrecognised perftest version '" + version + "' (expected digits, " +
                "a dot, digits, like 6.06)");
        }
        return Double.parseDouble(version);
    }

    /**
     * Accept or refuse a peer's version.
     *
     * @param peer the peer's version text.
     * @return its value.
     * @throws PerftestVersionException naming the version when roce4j cannot speak to it.
     */
    public static double checkCompatible(final String peer) throws PerftestVersionException
    {
        final double value = value(peer);
        if (value < MIN_COMPATIBLE)
        {
            throw new PerftestVersionException(String.format(Locale.ROOT, "peer perftest version %s is older than " +
                "%.2f, which perftest itself refuses (\"not compatible with versions older than 5.70\")", peer,
                MIN_COMPATIBLE));
        }
        return value;
    }

    /**
     * Whether this session runs perftest's parameter negotiation: each side runs it when the other announced 6.28 or
     * later, so both run it exactly when both versions are 6.28 or later (a perftest older than 6.28 has no such
     * step at all).
     *
     * @param localVersion the version roce4j announced.
     * @param peerVersion  the version the peer announced.
     * @return true when both are 6.28 or later.
     * @throws PerftestVersionException when either is not a version.
     */
    public static boolean negotiates(final String localVersion, final String peerVersion)
        throws PerftestVersionException
    {
        return value(localVersion) >= FIRST_NEGOTIATING && value(peerVersion) >= FIRST_NEGOTIATING;
    }

    private static boolean isPrintable(final byte[] bytes, final int length)
    {
        for (int i = 0; i < length; i++)
        {
            if (bytes[i] < 0x20 || bytes[i] >= 0x7F)
            {
                return false;
            }
        }
        return true;
    }

    static String hex(final byte[] bytes)
    {
        final StringBuilder sb = new StringBuilder();
        for (int i = 0; i < bytes.length && i < LENGTH; i++)
        {
            sb.append(String.format(Locale.ROOT, "%02x", bytes[i] & 0xFF));
        }
        return sb.toString();
    }
}
