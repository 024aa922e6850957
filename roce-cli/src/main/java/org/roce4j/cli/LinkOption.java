package org.roce4j.cli;

import java.io.IOException;

import org.roce4j.transport.link.Link;
import org.roce4j.transport.link.LinkSpecs;
import picocli.CommandLine.Option;

/**
 * The {@code --link} option of every command that moves RoCE traffic (pingpong, perf, rping): one description, one
 * default, so every help text says the same.
 */
public final class LinkOption
{
    /** The help text of {@code --link}: its default and every form. */
    static final String DESCRIPTION = "how RoCE frames leave this JVM (default: memory, both sides in this " +
        "process over the in-memory fabric): " + LinkSpecs.FORMS;

    @Option(names = "--link", paramLabel = "SPEC", description = DESCRIPTION)
    private String spec = LinkSpecs.MEMORY;

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
     * Open a network link.
     *
     * @return the link.
     * @throws IOException              when the medium cannot be opened.
     * @throws IllegalArgumentException for a malformed spec, or a {@code memory:IP} port (a program's own fabric:
     *                                  a command would wait alone on it).
     * @throws IllegalStateException    as {@link LinkSpecs#open(String)}.
     */
    public Link open() throws IOException
    {
        if (LinkSpecs.isMemoryPort(spec))
        {
            throw new IllegalArgumentException("--link " + spec + ": a memory:IP port belongs to a program's own " +
                "fabric and nothing else would be on it; --link memory runs both sides in this process");
        }
        return LinkSpecs.open(spec);
    }
}
