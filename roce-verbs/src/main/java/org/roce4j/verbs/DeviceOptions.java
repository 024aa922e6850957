package org.roce4j.verbs;

import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.roce4j.transport.provider.EngineConfig;

/**
 * How {@link RdmaDevice#open} builds a device: threading mode, engine tunables (including the clock) and memory
 * registration policy.
 *
 * <pre>{@code
 * DeviceOptions.invoker().progressGroup(group).engineConfig(new EngineConfig().clock(clock));
 * DeviceOptions.dedicated().idleStrategy(new BackoffIdleStrategy());
 * }</pre>
 */
public final class DeviceOptions
{
    private ThreadingMode threadingMode = ThreadingMode.INVOKER;
    private ProgressGroup progressGroup;
    private IdleStrategy idleStrategy;
    private EngineConfig engineConfig = new EngineConfig();
    private boolean allowHeapMemory;
    private String name;

    /**
     * @return options for {@link ThreadingMode#INVOKER}; without {@link #progressGroup(ProgressGroup)} the device
     *     joins the opening thread's group ({@link ProgressGroup#ofCurrentThread()}).
     */
    public static DeviceOptions invoker()
    {
        return new DeviceOptions().threadingMode(ThreadingMode.INVOKER);
    }

    /**
     * @return options for {@link ThreadingMode#DEDICATED} with a busy-spinning agent thread.
     */
    public static DeviceOptions dedicated()
    {
        return new DeviceOptions().threadingMode(ThreadingMode.DEDICATED);
    }

    /**
     * @param mode who runs the engine.
     * @return this.
     */
    public DeviceOptions threadingMode(final ThreadingMode mode)
    {
        this.threadingMode = ProgressGroup.requireNonNull(mode, "threadingMode");
        return this;
    }

    /**
     * @return who runs the engine.
     */
    public ThreadingMode threadingMode()
    {
        return threadingMode;
    }

    /**
     * @param group the group this device joins (INVOKER only); null (the default) joins the group of the thread that
     *              opens the device, {@link ProgressGroup#ofCurrentThread()}.
     * @return this.
     */
    public DeviceOptions progressGroup(final ProgressGroup group)
    {
        this.progressGroup = group;
        return this;
    }

    /**
     * @return the progress group to join, or null for the opening thread's.
     */
    public ProgressGroup progressGroup()
    {
        return progressGroup;
    }

    /**
     * @param strategy how the agent thread idles (DEDICATED only). Each device needs its own instance (idle
     *                 strategies keep state). Default: {@link BusySpinIdleStrategy}.
     * @return this.
     */
    public DeviceOptions idleStrategy(final IdleStrategy strategy)
    {
        this.idleStrategy = strategy;
        return this;
    }

    /**
     * Use Agrona's {@link BackoffIdleStrategy} for the agent thread: spin, yield, then park up to 1 ms.
     *
     * @return this.
     */
    public DeviceOptions backoff()
    {
        return idleStrategy(new BackoffIdleStrategy(10, 20, 1_000, 1_000_000));
    }

    /**
     * @return the agent thread's idle strategy, or null for the default.
     */
    public IdleStrategy idleStrategy()
    {
        return idleStrategy;
    }

    /**
     * @param config engine tunables, including the clock every timer uses.
     * @return this.
     */
    public DeviceOptions engineConfig(final EngineConfig config)
    {
        this.engineConfig = ProgressGroup.requireNonNull(config, "engineConfig");
        return this;
    }

    /**
     * @return engine tunables.
     */
    public EngineConfig engineConfig()
    {
        return engineConfig;
    }

    /**
     * Allow registering heap memory (byte[]-backed buffers). Off by default: registered memory is meant to be
     * native, pinned and addressed by its native address as with ibv_reg_mr; a heap buffer has no stable native
     * address, so it may only be registered with an explicit IOVA. The engine itself copies through Agrona buffers
     * and handles heap memory correctly.
     *
     * @param allow true to accept heap buffers (with an explicit IOVA).
     * @return this.
     */
    public DeviceOptions allowHeapMemory(final boolean allow)
    {
        this.allowHeapMemory = allow;
        return this;
    }

    /**
     * @return whether heap buffers may be registered.
     */
    public boolean allowHeapMemory()
    {
        return allowHeapMemory;
    }

    /**
     * @param name device name for thread names and messages (default: "roce4j_" + the link name).
     * @return this.
     */
    public DeviceOptions name(final String name)
    {
        this.name = name;
        return this;
    }

    /**
     * @return the device name, or null for the default.
     */
    public String name()
    {
        return name;
    }
}
