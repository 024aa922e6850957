package org.roce4j.interop;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;

import org.roce4j.cli.RoceCommand;

/**
 * The {@code roce} command run in this JVM, through its real command line, with its standard output and error kept
 * apart: how the interop tests run roce4j's side of a case.
 *
 * @param exitCode the command's exit code.
 * @param out      what it printed on standard output.
 * @param err      what it printed on standard error.
 */
record RoceRun(int exitCode, String out, String err)
{
    /**
     * @param args the command line after {@code roce}, e.g. {@code pingpong --link ...}.
     * @return how it ended.
     */
    static RoceRun run(final List<String> args)
    {
        return run(new StringWriter(), args);
    }

    /**
     * @param out  where its standard output goes as it prints (a subclass may watch it).
     * @param args the command line after {@code roce}.
     * @return how it ended.
     */
    static RoceRun run(final StringWriter out, final List<String> args)
    {
        final StringWriter err = new StringWriter();
        final int exit = RoceCommand.commandLine()
            .setOut(new PrintWriter(out, true))
            .setErr(new PrintWriter(err, true))
            .execute(args.toArray(new String[0]));
        return new RoceRun(exit, out.toString(), err.toString());
    }

    /**
     * @param args the command line after {@code roce}.
     * @return how it ended.
     */
    static RoceRun run(final String... args)
    {
        return run(List.of(args));
    }
}
