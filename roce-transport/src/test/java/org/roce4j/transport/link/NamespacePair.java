package org.roce4j.transport.link;

import org.opentest4j.TestAbortedException;

/**
 * Two network namespaces for a test of links across a real kernel hop, made in a test class's {@code @BeforeAll} and
 * deleted in its {@code @AfterAll}: the one home of that set-up for the tests that need it.
 *
 * <p>The factories first run the class's environment check (root, {@code ip}, libpcap, ...). When it fails they
 * return null instead of throwing: Surefire does not report a skip thrown from {@code @BeforeAll}, so each test
 * method runs the same check again and skips (or, with {@code ROCE4J_REQUIRE_TOOLS=1}, fails) with the reason itself.
 */
public final class NamespacePair implements AutoCloseable
{
    private final NetworkNamespace first;
    private final NetworkNamespace second;

    private NamespacePair(final NetworkNamespace first, final NetworkNamespace second)
    {
        this.first = first;
        this.second = second;
    }

    /**
     * Create two namespaces, not joined yet, when the environment allows.
     *
     * @param requireEnvironment the test class's check, which skips or fails by throwing.
     * @param firstTag           short text for the first namespace's name.
     * @param secondTag          short text for the second namespace's name.
     * @return the pair, or null when the check failed.
     */
    public static NamespacePair createIfAvailable(
        final Runnable requireEnvironment, final String firstTag, final String secondTag)
    {
        try
        {
            requireEnvironment.run();
        }
        catch (final TestAbortedException | AssertionError ex)
        {
            return null;
        }
        final NetworkNamespace first = NetworkNamespace.create(firstTag);
        try
        {
            return new NamespacePair(first, NetworkNamespace.create(secondTag));
        }
        catch (final RuntimeException ex)
        {
            first.close();
            throw ex;
        }
    }

    /**
     * Create two namespaces joined by a veth pair ({@link NetworkNamespace#joinByVeth}: both ends up, IPv6 off)
     * when the environment allows.
     *
     * @param requireEnvironment the test class's check, which skips or fails by throwing.
     * @param firstTag           short text for the first namespace's name.
     * @param firstDevice        the first end's name.
     * @param firstAddress       its address with prefix length, e.g. {@code 10.81.0.1/24}; null for none.
     * @param secondTag          short text for the second namespace's name.
     * @param secondDevice       the second end's name.
     * @param secondAddress      its address with prefix length; null for none.
     * @param mtu                IP MTU of both ends.
     * @return the pair, or null when the check failed.
     */
    public static NamespacePair joinedByVeth(
        final Runnable requireEnvironment,
        final String firstTag, final String firstDevice, final String firstAddress,
        final String secondTag, final String secondDevice, final String secondAddress,
        final int mtu)
    {
        final NamespacePair pair = createIfAvailable(requireEnvironment, firstTag, secondTag);
        if (null != pair)
        {
            try
            {
                NetworkNamespace.joinByVeth(
                    pair.first, firstDevice, firstAddress, pair.second, secondDevice, secondAddress, mtu);
            }
            catch (final RuntimeException ex)
            {
                pair.close();
                throw ex;
            }
        }
        return pair;
    }

    /**
     * Delete a pair that may never have been made.
     *
     * @param pair or null.
     */
    public static void close(final NamespacePair pair)
    {
        if (null != pair)
        {
            pair.close();
        }
    }

    /**
     * @return the first namespace.
     */
    public NetworkNamespace first()
    {
        return first;
    }

    /**
     * @return the second namespace.
     */
    public NetworkNamespace second()
    {
        return second;
    }

    /**
     * Delete both namespaces and everything in them. Idempotent.
     */
    public void close()
    {
        try
        {
            first.close();
        }
        finally
        {
            second.close();
        }
    }
}
