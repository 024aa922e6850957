package org.roce4j.bench.suite;

import java.io.PrintStream;
import java.util.Locale;

/**
 * A one-line text progress bar redrawn with a carriage return: {@code [#######.......]  45% 123/270  udp write 4096 B
 * ... ETA 4:05}. The estimate assumes the remaining steps take as long, on average, as the finished ones.
 */
final class ProgressBar
{
    private static final int WIDTH = 30;
    private static final int MAX_LABEL = 44;

    private final PrintStream out;
    private final int total;
    private final long startNs = System.nanoTime();
    private int done;

    ProgressBar(final PrintStream out, final int total)
    {
        this.out = out;
        this.total = Math.max(1, total);
    }

    /**
     * Show the step about to run.
     */
    void start(final String label)
    {
        draw(label);
    }

    /**
     * Count a finished step.
     */
    void step()
    {
        done = Math.min(total, done + 1);
    }

    /**
     * Draw the finished bar and end the line.
     */
    void finish()
    {
        done = total;
        draw("done");
        out.println();
        out.flush();
    }

    int done()
    {
        return done;
    }

    private void draw(final String label)
    {
        final int filled = done * WIDTH / total;
        final StringBuilder bar = new StringBuilder(WIDTH + 80).append("\r[");
        for (int i = 0; i < WIDTH; i++)
        {
            bar.append(i < filled ? '#' : '.');
        }
        final long elapsedS = (System.nanoTime() - startNs) / 1_000_000_000L;
        final long etaS = 0 == done ? -1 : elapsedS * (total - done) / done;
        final String shown = label.length() > MAX_LABEL ? label.substring(0, MAX_LABEL) : label;
        bar.append(String.format(Locale.ROOT, "] %3d%% %d/%d  %-" + MAX_LABEL + "s elapsed %d:%02d ETA %s",
            done * 100 / total, done, total, shown, elapsedS / 60, elapsedS % 60,
            etaS < 0 ? "?" : String.format(Locale.ROOT, "%d:%02d", etaS / 60, etaS % 60)));
        out.print(bar);
        out.flush();
    }
}
