package org.roce4j.cli;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.imageio.ImageIO;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roce4j.wire.test.Tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The HTML report in a real browser: Debian's headless Chromium loads {@code index.html} and a scenario page from
 * {@code roce conform --self --report DIR}; the DOM it dumps has the verdict table with a link per scenario and the
 * inline SVG ladder with one arrow group per frame (the dropped ACK among them), and its screenshot of the page shows
 * the dropped arrow's red. Needs {@code chromium}: skipped without it, failed without it when
 * ROCE4J_REQUIRE_TOOLS=1 (CI installs it).
 */
class HtmlReportChromiumTest
{
    private static final String LOST_ACK = "requester.lost-ack-retransmit";
    private static final String BAD_ICRC = "responder.bad-icrc-dropped";
    /** A hang guard, not a speed check: Chromium starts in about a second. */
    private static final long CHROMIUM_TIMEOUT_SECS = 120;
    private static final Pattern FRAME_GROUP = Pattern.compile("<g class=\"frame ([a-z]+)");

    @TempDir
    Path temp;

    private List<String> chromium(final Path chromium, final String... arguments)
    {
        // Chromium must not reach the network (the machine may talk only to loopback): no background services, every
        // host name unresolvable and anything else sent to a closed local port. The pages are file:// URLs.
        final List<String> command = new ArrayList<>(List.of(chromium.toString(), "--headless", "--disable-gpu",
            "--no-sandbox", "--user-data-dir=" + temp.resolve("profile"), "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--disable-domain-reliability", "--no-first-run",
            "--no-pings", "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=http://127.0.0.1:9"));
        command.addAll(List.of(arguments));
        return command;
    }

    private String dumpDom(final Path chromium, final Path page)
    {
        final Tools.Result result = Tools.run(chromium(chromium, "--dump-dom", page.toUri().toString()),
            CHROMIUM_TIMEOUT_SECS);
        assertEquals(0, result.exitCode(), result.stderr());
        return result.stdout();
    }

    @Test
    void chromiumRendersTheIndexAndAScenarioPageWithItsLadder() throws Exception
    {
        final Path chromium = Tools.require("chromium");
        final Path report = temp.resolve("report");
        final Cli.Result run = Cli.run("conform", "--self", "--scenario", LOST_ACK, BAD_ICRC, "--report",
            report.toString());
        assertEquals(0, run.exitCode(), run.out() + run.err());

        final String index = dumpDom(chromium, report.resolve("index.html"));
        assertTrue(index.contains("<table id=\"verdicts\">"), index);
        for (final String scenario : List.of(LOST_ACK, BAD_ICRC))
        {
            assertTrue(index.contains("<a href=\"html/" + scenario + ".html\">" + scenario + "</a>"), index);
        }
        assertEquals(3, index.split("<tr>", -1).length - 1, "a header row and two scenarios");

        final Path page = report.resolve("html").resolve(LOST_ACK + ".html");
        final String dom = dumpDom(chromium, page);
        assertTrue(dom.contains("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"ladder\""), dom);
        final List<String> fates = new ArrayList<>();
        final Matcher matcher = FRAME_GROUP.matcher(dom);
        while (matcher.find())
        {
            fates.add(matcher.group(1));
        }
        assertEquals(List.of("delivered", "dropped", "delivered", "delivered"), fates, "WRITE, lost ACK, " +
            "retransmitted WRITE, ACK");
        assertTrue(dom.split("class=\"arrow\"", -1).length - 1 >= 4, "an arrow per frame");
        assertTrue(dom.contains("<li class=\"ok\">OK: retransmission of PSN 0x"), dom);

        final Path png = temp.resolve("page.png");
        final Tools.Result shot = Tools.run(chromium(chromium, "--window-size=1000,1000", "--screenshot=" + png,
            page.toUri().toString()), CHROMIUM_TIMEOUT_SECS);
        assertEquals(0, shot.exitCode(), shot.stderr());
        assertTrue(Files.size(png) > 0, "an empty screenshot");
        final BufferedImage image = ImageIO.read(png.toFile());
        assertEquals(1000, image.getWidth());
        assertTrue(redPixels(image) > 20, "the dropped ACK's red arrow and X are drawn: " + redPixels(image));
    }

    /** Pixels close to the dropped arrow's #c00000: only the rendered SVG has that colour on the page. */
    private static int redPixels(final BufferedImage image)
    {
        int count = 0;
        for (int y = 0; y < image.getHeight(); y++)
        {
            for (int x = 0; x < image.getWidth(); x++)
            {
                final int rgb = image.getRGB(x, y);
                final int r = (rgb >> 16) & 0xFF;
                final int g = (rgb >> 8) & 0xFF;
                final int b = rgb & 0xFF;
                count += r > 150 && g < 70 && b < 70 ? 1 : 0;
            }
        }
        return count;
    }
}
