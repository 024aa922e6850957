package org.roce4j.cli;

import java.io.PrintWriter;

import org.roce4j.verbs.RdmaDevice;
import picocli.CommandLine.Option;

/**
 * {@code --counters} of the commands that move RoCE traffic (pingpong, perf): after the run, the device's non-zero
 * counters (retransmissions, NAKs, drops, CNPs sent and handled...) on stderr, one {@code group.name value} per
 * line, named as rxe and mlx5 name them. One option, so every command prints them alike.
 */
public final class CountersOption
{
    @Option(names = "--counters", description = "after the run, print the device's non-zero counters " +
        "(retransmissions, NAKs, drops, CNPs...) on stderr")
    private boolean counters;

    /**
     * Print the device's non-zero counters when {@code --counters} was given.
     *
     * @param device the run's device.
     * @param err    where the lines go.
     */
    public void print(final RdmaDevice device, final PrintWriter err)
    {
        if (counters)
        {
            for (final String line : device.describeCounters().split("\n"))
            {
                if (!line.isEmpty())
                {
                    err.println(line);
                }
            }
            err.flush();
        }
    }
}
