package org.roce4j.verbs;

import org.roce4j.ib.AhAttributes;
import org.roce4j.transport.provider.AhOps;

/**
 * An address handle (struct ibv_ah): the destination of UD sends, checked and resolved once at creation into the
 * provider's address vector (source and destination IP addresses, traffic class, hop limit, flow label), so a post
 * only copies it.
 */
public final class AddressHandle
{
    private final ProtectionDomain pd;
    private final AhAttributes attributes;
    private final AhOps vector;
    private volatile boolean destroyed;

    AddressHandle(final ProtectionDomain pd, final AhAttributes attributes, final AhOps vector)
    {
        this.pd = pd;
        this.attributes = attributes;
        this.vector = vector;
    }

    /**
     * @return the protection domain.
     */
    public ProtectionDomain pd()
    {
        return pd;
    }

    /**
     * @param out filled with the attributes the handle was created with (ibv_query_ah).
     * @return out.
     */
    public AhAttributes query(final AhAttributes out)
    {
        return out.copyFrom(attributes);
    }

    /**
     * @return true for an IPv6 path, false for IPv4.
     */
    public boolean isIpv6()
    {
        return vector.ipv6();
    }

    /**
     * Destroy the handle (ibv_destroy_ah). WRs already posted with it are unaffected (the vector was copied).
     *
     * @throws IllegalStateException when already destroyed.
     */
    public void destroy()
    {
        synchronized (this)
        {
            if (destroyed)
            {
                throw new IllegalStateException("address handle " + attributes + " is already destroyed");
            }
            destroyed = true;
        }
        pd.releaseAh();
    }

    /**
     * @return true once destroyed.
     */
    public boolean isDestroyed()
    {
        return destroyed;
    }

    AhOps ops()
    {
        return vector;
    }

    /**
     * @return e.g. {@code AH 10.0.0.1 -> 10.0.0.2 tc=0 hl=64 ...}.
     */
    public String toString()
    {
        return "AH " + vector + (destroyed ? " (destroyed)" : "");
    }
}
