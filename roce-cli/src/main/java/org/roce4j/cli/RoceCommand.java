package org.roce4j.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The {@code roce} command: the top of the picocli command tree. It does nothing itself; every feature is a
 * subcommand. To add one, write a small {@code Callable<Integer>} annotated with {@code @Command(name = ...)} in this
 * package, list its class in {@code subcommands} below and name it in the description (RoceCommandHelpTest checks
 * that every subcommand is named there).
 *
 * <p>Subcommands print to {@code spec.commandLine().getOut()/getErr()}, never to System.out directly, so tests can
 * run them in process through {@link #commandLine()} with captured writers.
 *
 * <p>Logging: the libraries under the links log through SLF4J (Netty, Pcap4J). roce.jar ships slf4j-simple with
 * every logger off ({@code simplelogger.properties}), so nothing but the tools' own lines reaches the terminal;
 * {@code roce -v ...} turns the libraries' warnings and info on, on stderr.
 */
@Command(
    name = "roce",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = {
        "roce4j: a pure-Java RoCEv2 endpoint. demo runs two endpoints in this JVM and decodes every packet; decode " +
            "prints the RoCEv2 frames of a capture; pingpong, perf, rping, udaddy, ucmatose, mckey, rdma_server and " +
            "rdma_client stand in for ibv_rc_pingpong, perftest's ib_* tools, rping and librdmacm's examples, " +
            "against C peers or with both sides in this process; incast simulates senders into one receiver " +
            "through a switch, with or without DCQCN; devinfo " +
            "prints a roce4j device as ibv_devinfo prints an RDMA device, gids its GID table as show_gids does; " +
            "conform judges a RoCEv2 device against the IBA rules with scripted, misbehaving exchanges.",
        "Exit codes follow the tool each command mirrors (table in README.md); usage errors of demo and decode: 2."},
    subcommands = {
        DemoCommand.class,
        DecodeCommand.class,
        PingpongCommand.class,
        PerfCommand.class,
        RpingCommand.class,
        UdaddyCommand.class,
        MckeyCommand.class,
        UcmatoseCommand.class,
        RdmaServerCommand.class,
        RdmaClientCommand.class,
        DevinfoCommand.class,
        IncastCommand.class,
        GidsCommand.class,
        ConformCommand.class,
        CommandLine.HelpCommand.class
    })
public final class RoceCommand implements Runnable
{
    /** The SLF4J simple binding's default level, set before the first logger exists (see {@link #verbose}). */
    static final String LOG_LEVEL_PROPERTY = "org.slf4j.simpleLogger.defaultLogLevel";

    @Spec
    private CommandSpec spec;

    /**
     * {@code -v}: let the libraries' log lines (warnings and info of Netty, Pcap4J) through to stderr. Set before the
     * subcommand runs, so before the first logger is made: slf4j-simple reads its configuration once.
     *
     * @param verbose true when given.
     */
    @Option(names = {"-v", "--verbose"}, description = "show the libraries' warnings and info (Netty, Pcap4J) on " +
        "stderr; without it they are off. Give it before the command: roce -v pingpong ...")
    void verbose(final boolean verbose)
    {
        if (verbose)
        {
            System.setProperty(LOG_LEVEL_PROPERTY, "info");
        }
    }

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
