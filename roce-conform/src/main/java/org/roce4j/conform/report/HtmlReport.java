package org.roce4j.conform.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

import org.roce4j.conform.CapturedFrame;
import org.roce4j.conform.Finding;
import org.roce4j.conform.ScenarioResult;
import org.roce4j.wire.ladder.Ladder;
import org.roce4j.wire.ladder.LadderSvg;

import static org.roce4j.wire.ladder.Markup.escape;

/**
 * The HTML report: {@code index.html} (the verdict table, each scenario's name a link to its page) and
 * {@code html/NAME.html} per scenario (its rule, verdict and reason, the checkers' findings, the exchange as an
 * inline SVG ladder diagram drawn by {@link LadderSvg} from {@link ConformLadder}, and the frame table, with a link
 * to its pcap). Self-contained pages (styles inline, no script); every text goes through
 * {@link org.roce4j.wire.ladder.Markup#escape}, file names in links are percent-encoded.
 */
public final class HtmlReport
{
    /** The scenario pages' folder inside the report directory. */
    public static final String PAGES = "html";

    private static final String STYLE = "<style>\n" +
        "body { font-family: sans-serif; margin: 1.5em; color: #222; }\n" +
        "table { border-collapse: collapse; margin: 1em 0; }\n" +
        "th, td { border: 1px solid #bbb; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }\n" +
        "th { background: #eef2f7; }\n" +
        "td.frame { font-family: monospace; }\n" +
        ".PASS { color: #2e7d32; font-weight: bold; }\n" +
        ".FAIL { color: #c00000; font-weight: bold; }\n" +
        ".DEVIATION { color: #c06000; font-weight: bold; }\n" +
        ".SKIP { color: #666; font-weight: bold; }\n" +
        "li.violation { color: #b00000; }\n" +
        "li.ok::marker { color: #2e7d32; }\n" +
        "</style>\n";

    private final String dut;
    private final String profile;

    /**
     * @param dut     the DUT's name.
     * @param profile the profile's name.
     */
    public HtmlReport(final String dut, final String profile)
    {
        this.dut = dut;
        this.profile = profile;
    }

    /**
     * @param dir     the report directory (exists).
     * @param results every result.
     * @throws IOException when a file cannot be written.
     */
    public void write(final Path dir, final List<ScenarioResult> results) throws IOException
    {
        Files.createDirectories(dir.resolve(PAGES));
        Files.writeString(dir.resolve("index.html"), index(results), StandardCharsets.UTF_8);
        for (final ScenarioResult result : results)
        {
            Files.writeString(dir.resolve(PAGES).resolve(result.scenario().name() + ".html"), page(result),
                StandardCharsets.UTF_8);
        }
    }

    /**
     * @param results every result.
     * @return index.html.
     */
    public String index(final List<ScenarioResult> results)
    {
        final StringBuilder html = head("roce conform report");
        html.append("<h1>roce conform report</h1>\n<p>DUT: ").append(escape(dut)).append("<br>\nProfile: ")
            .append(escape(profile)).append("<br>\n<span id=\"counts\">").append(escape(TerminalTable
            .countLine(results))).append("</span></p>\n<p>Also: <a href=\"report.md\">report.md</a>, " +
            "<a href=\"report.json\">report.json</a>, <a href=\"junit.xml\">junit.xml</a>, pcap/NAME.pcap.</p>\n" +
            "<table id=\"verdicts\">\n<thead><tr><th>scenario</th>" +
            "<th>side</th><th>IBA</th><th>rule</th><th>verdict</th><th>reason</th></tr></thead>\n<tbody>\n");
        for (final ScenarioResult result : results)
        {
            html.append("<tr><td><a href=\"").append(PAGES).append('/').append(escape(fileUrl(result.scenario()
                .name() + ".html"))).append("\">").append(escape(result.scenario().name())).append("</a></td><td>")
                .append(escape(result.scenario().side().suiteName())).append("</td><td>")
                .append(escape(result.scenario().rule().section())).append("</td><td>")
                .append(escape(result.scenario().rule().paraphrase())).append("</td>");
            verdictCell(html, result).append("<td>").append(escape(result.shownReason())).append("</td></tr>\n");
        }
        return html.append("</tbody>\n</table>\n</body>\n</html>\n").toString();
    }

    /**
     * @param result one scenario's result.
     * @return its page.
     */
    public String page(final ScenarioResult result)
    {
        final String name = result.scenario().name();
        final StringBuilder html = head(name + ": " + result.verdict());
        html.append("<p><a href=\"../index.html\">all scenarios</a></p>\n<h1>").append(escape(name))
            .append(" <span class=\"").append(result.verdict()).append("\">").append(result.verdict())
            .append("</span></h1>\n<p>").append(escape(result.scenario().rule().toString())).append("<br>\n")
            .append(escape(result.scenario().summary())).append("</p>\n");
        if (!result.reason().isEmpty())
        {
            html.append("<p id=\"reason\">Reason: ").append(escape(result.reason()));
            if (null != result.failedAt())
            {
                html.append(" (step: ").append(escape(result.failedAt())).append(')');
            }
            html.append("</p>\n");
        }
        final Ladder ladder = ConformLadder.of(result, dut);
        html.append("<h2>Findings</h2>\n<ol id=\"findings\">\n");
        for (final Ladder.Finding finding : ladder.findings())
        {
            html.append("<li class=\"").append(finding.kind().name().toLowerCase(Locale.ROOT)).append("\">")
                .append(label(finding.kind())).append(escape(finding.text()))
                .append(finding.frame() < 0 ? "" : " (frame #" + finding.frame() + ")").append("</li>\n");
        }
        html.append("</ol>\n<h2>Exchange</h2>\n<p>Time flows down; numbers in the ladder are the findings above. " +
            "Dropped frames stop half-way with an X; duplicated, delayed and corrupted frames are coloured and " +
            "named. The frames: <a href=\"../pcap/").append(escape(fileUrl(name + ".pcap"))).append("\">")
            .append(escape(name)).append(".pcap</a>.</p>\n<div class=\"ladder\">\n").append(LadderSvg.element(ladder))
            .append("</div>\n<table id=\"frames\">\n<thead><tr><th>#</th><th>t (us)</th><th>direction</th>" +
            "<th>frame</th></tr></thead>\n<tbody>\n");
        final long start = result.capture().frames().isEmpty() ? 0 : result.capture().frames().get(0).timeNs();
        for (final CapturedFrame frame : result.capture().frames())
        {
            html.append("<tr><td>").append(frame.index()).append("</td><td>").append((frame.timeNs() - start) / 1000.0)
                .append("</td><td>").append(frame.direction()).append("</td><td class=\"frame\">")
                .append(escape(frame.label())).append("</td></tr>\n");
        }
        return html.append("</tbody>\n</table>\n</body>\n</html>\n").toString();
    }

    private static StringBuilder head(final String title)
    {
        return new StringBuilder(16384).append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n")
            .append("<meta charset=\"utf-8\">\n<title>").append(escape(title)).append("</title>\n").append(STYLE)
            .append("</head>\n<body>\n");
    }

    private static StringBuilder verdictCell(final StringBuilder html, final ScenarioResult result)
    {
        return html.append("<td class=\"").append(result.verdict()).append("\">").append(result.verdict())
            .append("</td>");
    }

    /**
     * @param kind a finding's kind.
     * @return what the findings list puts before its text: nothing for a note, {@code not checked: } for a part of
     *     the rule not checked, else the kind's name.
     */
    private static String label(final Ladder.Kind kind)
    {
        switch (kind)
        {
            case NOTE:
                return "";
            case NOT_CHECKED:
                return Finding.NOT_CHECKED_PREFIX;
            default:
                return kind + ": ";
        }
    }

    /**
     * @param fileName a file's name.
     * @return the name as a relative URL: letters, digits and {@code . _ -} kept, every other UTF-8 byte
     * percent-encoded (so a scenario name from a YAML file cannot break out of the link or the folder).
     */
    static String fileUrl(final String fileName)
    {
        final StringBuilder out = new StringBuilder(fileName.length() + 8);
        for (final byte b : fileName.getBytes(StandardCharsets.UTF_8))
        {
            final int c = b & 0xFF;
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || '.' == c ||
                '_' == c || '-' == c)
            {
                out.append((char)c);
            }
            else
            {
                out.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                    .append(Character.toUpperCase(Character.forDigit(c & 0xF, 16)));
            }
        }
        return out.toString();
    }
}
