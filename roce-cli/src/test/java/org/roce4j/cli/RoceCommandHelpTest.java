package org.roce4j.cli;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.roce4j.transport.link.LinkSpecs;
import picocli.CommandLine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The help texts are complete and true (issue 16): the top-level description names every subcommand, no summary is
 * cut off mid-sentence, and every help that has --link says it defaults to memory and lists every link form, and
 * offers --faults, --pcap and --trace.
 */
class RoceCommandHelpTest
{
    private static final List<String> SUBCOMMANDS = List.of("demo", "decode", "pingpong", "perf", "rping", "udaddy",
        "mckey", "ucmatose", "rdma_server", "rdma_client", "incast", "devinfo",
        "gids", "conform");

    @Test
    void theTopLevelHelpNamesEverySubcommandAndCutsNoSummaryShort()
    {
        final Cli.Result result = Cli.run("--help");
        assertEquals(0, result.exitCode());
        final CommandLine roce = RoceCommand.commandLine();
        final String description = String.join(" ", roce.getCommandSpec().usageMessage().description());
        final Map<String, CommandLine> subcommands = roce.getSubcommands();
        assertEquals(SUBCOMMANDS.size() + 1, subcommands.size(), "a new subcommand must be named here too");
        for (final String name : SUBCOMMANDS)
        {
            assertTrue(subcommands.containsKey(name), name);
            assertTrue(description.matches("(?s).*\\b" + name + "\\b.*"), "the description does not name " + name);
            // picocli shows a subcommand's first description line as its summary: it must be a whole sentence.
            final String summary = subcommands.get(name).getCommandSpec().usageMessage().description()[0];
            assertTrue(summary.endsWith("."), name + "'s summary is cut off: " + summary);
            final String flat = result.out().replaceAll("\\s+", " ");
            assertTrue(flat.contains(name + " " + summary.replace("%%", "%")), name + " in:\n" + result.out());
        }
        assertTrue(result.out().contains("-v, --verbose"), result.out());
    }

    @Test
    void everyLinkOptionSaysItsDefaultAndListsEveryForm()
    {
        final String[] forms = LinkSpecs.FORMS.split(" \\| ");
        assertEquals(4, forms.length);
        for (final String name : List.of("pingpong", "perf", "rping", "udaddy", "ucmatose", "rdma_server",
            "rdma_client", "devinfo"))
        {
            final Cli.Result result = Cli.run(name, "--help");
            assertEquals(0, result.exitCode(), name);
            final String flat = result.out().replaceAll("\\s+", "");
            assertTrue(flat.contains("--link=SPEC"), name);
            assertTrue(flat.contains("(default:memory,bothsidesinthisprocessoverthein-memoryfabric)"), name +
                ":\n" + result.out());
            for (final String form : forms)
            {
                assertTrue(flat.contains(form.replaceAll("\\s+", "")), name + " lacks " + form);
            }
            assertTrue(result.out().contains("Exit code"), name + " says nothing of its exit codes");
            for (final String option : List.of("--faults=RULES", "--pcap=FILE", "--trace"))
            {
                assertTrue(flat.contains(option), name + " lacks " + option);
            }
            assertTrue(flat.contains("drop=0.02;reorder=0.01,dir=rx;seed=7"), name + ": the --faults example");
        }
        // rping's own usage (printed for a missing -s/-c) says the same.
        final Cli.Result usage = Cli.run("rping", "--link", "udp:127.0.0.1");
        assertEquals(RpingCommand.EXIT_EINVAL, usage.exitCode());
        assertTrue(usage.out().contains("--link SPEC\troce4j: " + LinkOption.DESCRIPTION), usage.out());
        assertTrue(usage.out().contains("--faults RULES\troce4j: " + LinkOption.FAULTS_DESCRIPTION), usage.out());
        assertTrue(usage.out().contains("--pcap FILE\troce4j: " + LinkOption.PCAP_DESCRIPTION), usage.out());
        assertTrue(usage.out().contains("--trace\t\troce4j: " + LinkOption.TRACE_DESCRIPTION), usage.out());
    }

    @Test
    void theDecodeHelpPromisesTheSummaryLineInEveryCase()
    {
        final Cli.Result result = Cli.run("decode", "--help");
        assertTrue(result.out().replaceAll("\\s+", " ").contains("The last line is always: summary: frames=N roce=M " +
            "icrc_ok=K icrc_bad=B (also when the file is missing, empty, not a capture or cut short"), result.out());
        assertFalse(result.out().contains("the server\n"), result.out());
    }
}
