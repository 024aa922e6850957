package org.roce4j.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The {@code roce} command: the top of the picocli command tree. It does nothing itself; every feature is a
 * subcommand. To add one (pingpong, perf, rping...), write a small {@code Callable<Integer>} annotated with
 * {@code @Command(name = ...)} in this package and list its class in {@code subcommands} below.
 *
 * <p>Subcommands print to {@code spec.commandLine().getOut()/getErr()}, never to System.out directly, so tests can
 * run them in process through {@link #commandLine()} with captured writers.
 */
@Command(
    name = "roce",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = "roce4j: a pure-Java RoCEv2 endpoint. Decode captures, build and show RoCEv2 traffic.",
    subcommands = {
        DemoCommand.class,
        DecodeCommand.class,
        PingpongCommand.class,
        PerfCommand.class,
        RpingCommand.class,
        CommandLine.HelpCommand.class
    })
public final class RoceCommand implements Runnable
{
    @Spec
    private CommandSpec spec;

    /**
     * Without a subcommand there is nothing to do: report it as a usage error.
     */
    public void run()
    {
        throw new ParameterException(spec.commandLine(), "missing subcommand (try 'roce help')");
    }

    /**
     * @return a fresh command line for the whole command tree.
     */
    public static CommandLine commandLine()
    {
        return new CommandLine(new RoceCommand());
    }

    /**
     * Entry point of roce.jar.
     *
     * @param args command line.
     */
    public static void main(final String[] args)
    {
        System.exit(commandLine().execute(args));
    }
}
