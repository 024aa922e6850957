package org.roce4j.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.Callable;

import org.roce4j.wire.decode.FrameDecoder;
import org.roce4j.wire.ladder.LadderSvg;
import org.roce4j.wire.ladder.PcapLadder;
import org.roce4j.wire.pcap.LinkType;
import org.roce4j.wire.pcap.PcapFormatException;
import org.roce4j.wire.pcap.PcapReader;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code roce decode FILE [--summary] [--hex] [--ladder OUT.svg]}: print every frame of a pcap or pcapng capture
 * with {@link FrameDecoder}, then the line {@code summary: frames=N roce=M icrc_ok=K icrc_bad=B}. With
 * {@code --ladder}, also draw the RoCEv2 exchange between the first frame's two endpoints as an SVG ladder diagram
 * ({@link PcapLadder}, {@link LadderSvg}).
 *
 * <p>Exit code 0 when the whole file was read, whatever the frames held; 1 with a message on stderr when the file
 * is missing, unreadable, not a capture, or cut short (no ladder is written for a file that is not a capture; one
 * with the frames read so far is written for a capture cut short), or when the ladder cannot be written. The
 * summary line ends stdout in every case (frames=0 when nothing could be read), so a script can always read it;
 * usage errors are picocli's, exit code 2.
 */
@Command(
    name = "decode",
    mixinStandardHelpOptions = true,
    description = {
        "Print every field of every frame of a pcap or pcapng capture (Ethernet link type), like tshark -V for " +
        "RoCEv2, then a summary line.",
        "The last line is always: summary: frames=N roce=M icrc_ok=K icrc_bad=B (also when the file is missing, " +
            "empty, not a capture or cut short: then an error line on stderr first, and exit code 1).",
        "--ladder OUT.svg also draws the RoCEv2 exchange between the first RoCEv2 frame's two IP addresses as a " +
            "ladder diagram: time flows down, each frame an arrow labelled opcode, PSN and AETH (bad ICRCs and " +
            "re-sent requests marked)."})
public final class DecodeCommand implements Callable<Integer>
{
    /** Exit code for a file that could not be read. */
    static final int EXIT_UNREADABLE = 1;

    @Spec
    private CommandSpec spec;

    @Parameters(index = "0", paramLabel = "FILE", description = "capture file (pcap or pcapng)")
    private Path file;

    @Option(names = "--summary", description = "one line per frame instead of every field")
    private boolean summary;

    @Option(names = "--hex", description = "follow each frame with a hex dump")
    private boolean hex;

    @Option(names = "--ladder", paramLabel = "OUT.svg",
        description = "also write an SVG ladder diagram of the RoCEv2 exchange between the first frame's two endpoints")
    private Path ladderFile;

    /**
     * @return the exit code.
     */
    public Integer call()
    {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        final PcapReader reader;
        try
        {
            reader = PcapReader.open(file);
        }
        catch (final IOException ex)
        {
            err.println("roce decode: " + describe(ex));
            err.flush();
            new FrameDecoder(out).printSummaryLine();
            out.flush();
            return EXIT_UNREADABLE;
        }
        final FrameDecoder decoder = new FrameDecoder(out).summary(summary).hexDump(hex);
        final PcapLadder ladder = null == ladderFile ? null : new PcapLadder();
        int exitCode = 0;
        try (reader)
        {
            while (reader.next())
            {
                if (LinkType.ETHERNET == reader.linkType())
                {
                    decoder.decode(reader.index(), reader.timestampNs(), reader.buffer(), 0,
                        reader.capturedLength(), reader.originalLength());
                    if (null != ladder)
                    {
                        ladder.add(reader.index(), reader.timestampNs(), reader.buffer(), 0, reader.capturedLength());
                    }
                }
                else
                {
                    decoder.unsupportedLinkType(reader.index(), reader.timestampNs(), reader.linkType(),
                        reader.capturedLength());
                }
            }
        }
        catch (final IOException | UncheckedIOException ex)
        {
            out.flush();
            final long frames = decoder.frames();
            err.println("roce decode: " + file + ": stopped after " + frames + (1 == frames ? " frame: " :
                " frames: ") + withoutFileName(ex instanceof UncheckedIOException ? ex.getCause().getMessage() :
                ex.getMessage()));
            exitCode = EXIT_UNREADABLE;
        }
        if (null != ladder && !writeLadder(ladder, err))
        {
            exitCode = EXIT_UNREADABLE;
        }
        decoder.printSummaryLine();
        out.flush();
        err.flush();
        return exitCode;
    }

    private boolean writeLadder(final PcapLadder ladder, final PrintWriter err)
    {
        try
        {
            Files.writeString(ladderFile, LadderSvg.document(ladder.ladder(String.valueOf(file.getFileName()))),
                StandardCharsets.UTF_8);
            return true;
        }
        catch (final IOException ex)
        {
            err.println("roce decode: cannot write the ladder to " + ladderFile + ": " + (ex instanceof
                NoSuchFileException ? "no such directory" : ex instanceof AccessDeniedException ?
                "permission denied" : ex.getMessage()));
            return false;
        }
    }

    /**
     * PcapReader's messages start with the file's name; the line printed here names it already.
     */
    private String withoutFileName(final String message)
    {
        final String prefix = file + ": ";
        return null != message && message.startsWith(prefix) ? message.substring(prefix.length()) : message;
    }

    private String describe(final IOException ex)
    {
        if (ex instanceof NoSuchFileException)
        {
            return file + ": no such file";
        }
        if (ex instanceof AccessDeniedException)
        {
            return file + ": permission denied";
        }
        if (ex instanceof PcapFormatException)
        {
            return ex.getMessage();
        }
        return file + ": cannot read: " + ex.getMessage();
    }
}
