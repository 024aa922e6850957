package org.roce4j.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.agrona.concurrent.SystemNanoClock;
import org.roce4j.transport.link.Link;
import org.roce4j.transport.link.LinkSpecs;
import org.roce4j.transport.link.capture.CaptureLink;
import org.roce4j.transport.link.capture.TraceLink;
import org.roce4j.transport.link.fault.FaultSpec;
import org.roce4j.transport.link.fault.FaultyLink;
import picocli.CommandLine.Option;

/**
 * The link options of every command that moves RoCE traffic (pingpong, perf, rping): {@code --link}, and the three
 * decorators any link takes, {@code --faults}, {@code --pcap} and {@code --trace}. One description each, one default,
 * so every help text says the same. The command opens its link with {@link #open(PrintWriter)} (or decorates the
 * ports it builds itself with {@link #decorate}) and calls {@link #report(PrintWriter)} when it ends, which prints what
 * was injected and recorded.
 */
public final class LinkOption
{
    /** The help text of {@code --link}: its default and every form. */
    static final String DESCRIPTION = "how RoCE frames leave this JVM (default: memory, both sides in this " +
        "process over the in-memory fabric): " + LinkSpecs.FORMS;
    /** The help text of {@code --faults}. */
    static final String FAULTS_DESCRIPTION = "inject faults into the link, seeded and counted, e.g. " +
        "'drop=0.02;reorder=0.01,dir=rx;seed=7' (" + FaultSpec.SUMMARY + "); what was injected is printed on stderr " +
        "at the end. With --link memory each side's port gets them";
    /** The help text of {@code --pcap}. */
    static final String PCAP_DESCRIPTION = "record every frame the link sends and receives (ARP and Neighbor " +
        "Discovery included) to a pcapng file, each with its direction, for Wireshark; with --link memory, the " +
        "client's port";
    /** The help text of {@code --trace}. */
    static final String TRACE_DESCRIPTION = "print one decoded line per frame on stderr as it crosses the link: " +
        "time, tx/rx, addresses, opcode, QPN, PSN, AckReq, RETH/AETH fields, ICRC status; with --link memory, the " +
        "client's port";

    @Option(names = "--link", paramLabel = "SPEC", description = DESCRIPTION)
    private String spec = LinkSpecs.MEMORY;

    @Option(names = "--faults", paramLabel = "RULES", description = FAULTS_DESCRIPTION)
    private String faults;

    @Option(names = "--pcap", paramLabel = "FILE", description = PCAP_DESCRIPTION)
    private Path pcap;

    @Option(names = "--trace", description = TRACE_DESCRIPTION)
    private boolean trace;

    private final List<FaultyLink> faulty = new ArrayList<>();
    private final List<CaptureLink> captures = new ArrayList<>();

    /**
     * @return the spec given, or {@code memory}.
     */
    public String spec()
    {
        return spec;
    }

    /**
     * @return true for the in-process fabric.
     */
    public boolean isMemory()
    {
        return LinkSpecs.isMemory(spec);
    }

    /**
     * Check the options that can be checked before anything opens ({@code --faults}' grammar).
     *
     * @throws IllegalArgumentException naming the rule and token at fault.
     */
    public void check()
    {
        if (null != faults)
        {
            FaultSpec.parse(faults);
        }
    }

    /**
     * Open a network link, decorated as the options say.
     *
     * @param err where {@code --trace} writes.
     * @return the link.
     * @throws IOException              when the medium or the pcap file cannot be opened.
     * @throws IllegalArgumentException for a malformed spec or fault rules, or a {@code memory:IP} port (a program's
     *                                  own fabric: a command would wait alone on it).
     * @throws IllegalStateException    as {@link LinkSpecs#open(String)}.
     */
    public Link open(final PrintWriter err) throws IOException
    {
        if (LinkSpecs.isMemoryPort(spec))
        {
            throw new IllegalArgumentException("--link " + spec + ": a memory:IP port belongs to a program's own " +
                "fabric and nothing else would be on it; --link memory runs both sides in this process");
        }
        check();
        final Link opened = LinkSpecs.open(spec);
        try
        {
            return decorate(opened, true, err);
        }
        catch (final IOException | RuntimeException ex)
        {
            opened.close();
            throw ex;
        }
    }

    /**
     * Wrap a link: faults next to it ({@code --faults}), then trace and capture ({@code --trace}, {@code --pcap}),
     * which see what crosses the medium (outgoing frames after the faults, incoming ones before).
     *
     * @param link  the link (a network link, or a port of an in-process fabric).
     * @param watch true to add trace and capture (the one port they watch in process).
     * @param err   where {@code --trace} writes.
     * @return the decorated link.
     * @throws IOException when the pcap file cannot be created.
     */
    public Link decorate(final Link link, final boolean watch, final PrintWriter err) throws IOException
    {
        Link decorated = link;
        if (null != faults)
        {
            final FaultyLink wrapped = new FaultyLink(decorated, FaultSpec.parse(faults), SystemNanoClock.INSTANCE);
            faulty.add(wrapped);
            decorated = wrapped;
        }
        if (watch && trace)
        {
            decorated = new TraceLink(decorated, new LineFlushing(err), SystemNanoClock.INSTANCE);
        }
        if (watch && null != pcap)
        {
            final CaptureLink capture = new CaptureLink(decorated, pcap, SystemNanoClock.INSTANCE);
            captures.add(capture);
            decorated = capture;
        }
        return decorated;
    }

    /**
     * Print what the decorators did: the faults injected (a line per faulty link) and the frames recorded.
     *
     * @param err where the lines go.
     */
    public void report(final PrintWriter err)
    {
        for (final FaultyLink link : faulty)
        {
            err.println(faulty.size() > 1 ? link.name() + ": " + link.report() : link.report());
        }
        for (final CaptureLink capture : captures)
        {
            err.println("pcap: " + capture.recorder().frames() + " frames recorded to " + capture.recorder().path());
        }
        err.flush();
    }

    /**
     * Writes trace lines through and flushes each, so they appear as they happen.
     */
    private static final class LineFlushing implements Appendable
    {
        private final PrintWriter out;

        LineFlushing(final PrintWriter out)
        {
            this.out = out;
        }

        public Appendable append(final CharSequence text)
        {
            out.append(text);
            if (text.length() > 0 && '\n' == text.charAt(text.length() - 1))
            {
                out.flush();
            }
            return this;
        }

        public Appendable append(final CharSequence text, final int start, final int end)
        {
            return append(text.subSequence(start, end));
        }

        public Appendable append(final char c)
        {
            out.append(c);
            if ('\n' == c)
            {
                out.flush();
            }
            return this;
        }
    }
}
