package org.roce4j.cli.perf;

import java.util.Locale;

/**
 * The perftest tools {@code roce perf} plays, with what each measures (perftest's verb and test type).
 */
public enum PerfTest
{
    /** ib_send_bw: SEND bandwidth; the server counts receives. */
    SEND_BW(Verb.SEND, false),
    /** ib_write_bw: RDMA WRITE bandwidth; the server only answers. */
    WRITE_BW(Verb.WRITE, false),
    /** ib_read_bw: RDMA READ bandwidth; the server only answers. */
    READ_BW(Verb.READ, false),
    /** ib_atomic_bw: FETCH_AND_ADD or CMP_AND_SWAP rate on 8 bytes; the server only answers. */
    ATOMIC_BW(Verb.ATOMIC, false),
    /** ib_send_lat: SEND ping-pong, half the round trip. */
    SEND_LAT(Verb.SEND, true),
    /** ib_write_lat: RDMA WRITE ping-pong, each side polling its buffer's last byte; half the round trip. */
    WRITE_LAT(Verb.WRITE, true),
    /** ib_read_lat: RDMA READ round trip; the server only answers. */
    READ_LAT(Verb.READ, true);

    /** perftest's verbs (VerbType): SEND, WRITE, READ, ATOMIC, in its order. */
    public enum Verb
    {
        /** SEND / RECV. */
        SEND("Send"),
        /** RDMA WRITE. */
        WRITE("RDMA_Write"),
        /** RDMA READ. */
        READ("RDMA_Read"),
        /** Atomics. */
        ATOMIC("Atomic");

        private final String title;

        Verb(final String title)
        {
            this.title = title;
        }

        /**
         * @return the name perftest prints in its title line (testsStr).
         */
        public String title()
        {
            return title;
        }
    }

    private final Verb verb;
    private final boolean latency;

    PerfTest(final Verb verb, final boolean latency)
    {
        this.verb = verb;
        this.latency = latency;
    }

    /**
     * @return what the test posts.
     */
    public Verb verb()
    {
        return verb;
    }

    /**
     * @return true for the latency tests, false for bandwidth.
     */
    public boolean isLatency()
    {
        return latency;
    }

    /**
     * @return e.g. {@code write_bw}.
     */
    public String toolName()
    {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * @param name e.g. {@code write_bw} or {@code ib_write_bw}.
     * @return the test.
     * @throws IllegalArgumentException naming the choices.
     */
    public static PerfTest parse(final String name)
    {
        final String bare = name.toLowerCase(Locale.ROOT).replaceFirst("^ib_", "");
        for (final PerfTest test : values())
        {
            if (test.toolName().equals(bare))
            {
                return test;
            }
        }
        throw new IllegalArgumentException("unknown test '" + name + "'; expected one of send_bw, write_bw, " +
            "read_bw, atomic_bw, send_lat, write_lat, read_lat");
    }
}
