package org.roce4j.verbs;

/**
 * Who runs a device's engine duty cycle.
 */
public enum ThreadingMode
{
    /**
     * The application's thread drives the engine: every poll and wait call on the device's completion queues, every
     * {@link RdmaDevice#progress()} and every {@link RdmaDevice#getAsyncEvent(long)} runs one duty cycle of every
     * engine in the device's {@link ProgressGroup}. No thread is created; with an injected clock the device is fully
     * deterministic. All calls on the device must come from that one thread.
     */
    INVOKER,

    /**
     * An Agrona AgentRunner thread per device runs the engine with the configured idle strategy; the application
     * posts and polls from its own threads (one poster per QP, one poller per CQ) and control calls are handed to
     * the engine thread.
     */
    DEDICATED
}
