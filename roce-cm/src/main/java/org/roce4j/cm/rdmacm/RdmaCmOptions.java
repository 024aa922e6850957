package org.roce4j.cm.rdmacm;

import org.roce4j.cm.ib.CmConfig;
import org.roce4j.cm.ib.CmIdSource;
import org.roce4j.cm.ib.GsiPort;

/**
 * How an {@link RdmaCm} runs: the CM's timing ({@link CmConfig}), where its random numbers come from, QP1's depth,
 * and the min_rnr_timer it gives connected QPs.
 */
public final class RdmaCmOptions
{
    private CmConfig cmConfig = new CmConfig();
    private CmIdSource ids = CmIdSource.secure();
    private int gsiDepth = GsiPort.DEFAULT_DEPTH;
    private int minRnrTimer;

    /**
     * @param config CM timeouts and retries.
     * @return this.
     */
    public RdmaCmOptions cmConfig(final CmConfig config)
    {
        this.cmConfig = requireNonNull(config, "cmConfig");
        return this;
    }

    /**
     * @return CM timeouts and retries.
     */
    public CmConfig cmConfig()
    {
        return cmConfig;
    }

    /**
     * @param source communication IDs, PSNs and ports (seeded in tests).
     * @return this.
     */
    public RdmaCmOptions ids(final CmIdSource source)
    {
        this.ids = requireNonNull(source, "ids");
        return this;
    }

    /**
     * @return the ID source.
     */
    public CmIdSource ids()
    {
        return ids;
    }

    /**
     * @param depth receive and send buffers of QP1, 1..4096 (default 64).
     * @return this.
     */
    public RdmaCmOptions gsiDepth(final int depth)
    {
        if (depth < 1 || depth > 4096)
        {
            throw new IllegalArgumentException("gsiDepth must be 1..4096, got " + depth);
        }
        this.gsiDepth = depth;
        return this;
    }

    /**
     * @return QP1's depth.
     */
    public int gsiDepth()
    {
        return gsiDepth;
    }

    /**
     * @param code min_rnr_timer code 0..31 set at RTR. Default 0, what the kernel CM sets (cm.c
     *             cm_init_qp_rtr_attr), which IBA reads as 655.36 ms.
     * @return this.
     */
    public RdmaCmOptions minRnrTimer(final int code)
    {
        if (code < 0 || code > 31)
        {
            throw new IllegalArgumentException("min_rnr_timer is a 5-bit code, 0..31; got " + code);
        }
        this.minRnrTimer = code;
        return this;
    }

    /**
     * @return min_rnr_timer code.
     */
    public int minRnrTimer()
    {
        return minRnrTimer;
    }

    private static <T> T requireNonNull(final T value, final String name)
    {
        if (null == value)
        {
            throw new NullPointerException(name + " must not be null");
        }
        return value;
    }
}
