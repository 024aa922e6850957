package org.roce4j.conform.report;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import javax.xml.stream.XMLOutputFactory;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamWriter;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import org.roce4j.conform.CapturedFrame;
import org.roce4j.conform.Finding;
import org.roce4j.conform.ScenarioResult;
import org.roce4j.conform.Verdict;
import org.roce4j.wire.pcap.PcapWriter;

/**
 * Writes a run's reports into a directory: {@code report.md} (a table, then each scenario's rule, steps' outcome,
 * findings and exchange), {@code report.json} (the same as data, written by Jackson), {@code junit.xml} (one
 * testcase per scenario, written by the JDK's StAX writer; FAIL is a failure, SKIP is skipped) and
 * {@code pcap/NAME.pcap} (each scenario's exchange, both directions, timestamps on the runner's clock), and the HTML
 * pages of {@link HtmlReport}: {@code index.html} and {@code html/NAME.html} with each exchange's ladder diagram.
 */
public final class ReportWriter
{
    private final String dut;
    private final String profile;

    /**
     * @param dut     the DUT's name.
     * @param profile the profile's name.
     */
    public ReportWriter(final String dut, final String profile)
    {
        this.dut = dut;
        this.profile = profile;
    }

    /**
     * @param dir     the report directory (created when missing).
     * @param results every result.
     * @throws IOException when a file cannot be written.
     */
    public void write(final Path dir, final List<ScenarioResult> results) throws IOException
    {
        Files.createDirectories(dir.resolve("pcap"));
        Files.writeString(dir.resolve("report.md"), markdown(results), StandardCharsets.UTF_8);
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(dir.resolve("report.json").toFile(),
            json(results));
        try (OutputStream out = Files.newOutputStream(dir.resolve("junit.xml")))
        {
            junit(out, results);
        }
        for (final ScenarioResult result : results)
        {
            try (PcapWriter pcap = new PcapWriter(dir.resolve("pcap").resolve(result.scenario().name() + ".pcap")))
            {
                for (final CapturedFrame frame : result.capture().frames())
                {
                    pcap.write(frame.bytes(), frame.timeNs());
                }
            }
        }
        new HtmlReport(dut, profile).write(dir, results);
    }

    /**
     * @param results every result.
     * @return the Markdown report.
     */
    public String markdown(final List<ScenarioResult> results)
    {
        final StringBuilder md = new StringBuilder(16384);
        md.append("# roce conform report\n\nDUT: ").append(dut).append("  \nProfile: ").append(profile)
            .append("  \n").append(TerminalTable.countLine(results)).append("\n\n")
            .append("| scenario | side | IBA | rule | verdict | reason |\n|---|---|---|---|---|---|\n");
        for (final ScenarioResult result : results)
        {
            md.append("| `").append(result.scenario().name()).append("` | ").append(result.scenario().side()
                .suiteName()).append(" | ").append(cell(result.scenario().rule().section())).append(" | ")
                .append(cell(result.scenario().rule().paraphrase())).append(" | **").append(result.verdict())
                .append("** | ").append(cell(result.shownReason())).append(" |\n");
        }
        for (final ScenarioResult result : results)
        {
            md.append("\n## ").append(result.scenario().name()).append(": ").append(result.verdict()).append("\n\n")
                .append(result.scenario().rule()).append("  \n").append(result.scenario().summary()).append("\n\n");
            if (!result.reason().isEmpty())
            {
                md.append("Reason: ").append(result.reason()).append(" (step: ").append(result.failedAt())
                    .append(")\n\n");
            }
            for (final String note : result.notes())
            {
                md.append("- ").append(note).append('\n');
            }
            md.append("\n| # | t (us) | direction | frame |\n|---|---|---|---|\n");
            final long start = result.capture().frames().isEmpty() ? 0 : result.capture().frames().get(0).timeNs();
            for (final CapturedFrame frame : result.capture().frames())
            {
                md.append("| ").append(frame.index()).append(" | ").append((frame.timeNs() - start) / 1000.0)
                    .append(" | ").append(frame.direction()).append(" | ").append(cell(frame.label())).append(" |\n");
            }
        }
        return md.toString();
    }

    private static String cell(final String text)
    {
        return text.replace("|", "\\|").replace("\n", " ");
    }

    private Map<String, Object> json(final List<ScenarioResult> results)
    {
        final Map<String, Object> root = new LinkedHashMap<>();
        root.put("dut", dut);
        root.put("profile", profile);
        final Map<String, Integer> counts = new LinkedHashMap<>();
        TerminalTable.counts(results).forEach((verdict, count) -> counts.put(verdict.name(), count));
        counts.put("NOT_CHECKED", TerminalTable.notCheckedCount(results));
        root.put("counts", counts);
        final List<Map<String, Object>> scenarios = new ArrayList<>();
        for (final ScenarioResult result : results)
        {
            final Map<String, Object> s = new LinkedHashMap<>();
            s.put("name", result.scenario().name());
            s.put("side", result.scenario().side().suiteName());
            s.put("section", result.scenario().rule().section());
            s.put("rule", result.scenario().rule().paraphrase());
            s.put("verdict", result.verdict().name());
            s.put("reason", result.reason());
            s.put("failedAt", result.failedAt());
            s.put("notes", result.notes());
            s.put("notChecked", result.notChecked());
            s.put("durationNs", result.durationNs());
            final List<Map<String, Object>> frames = new ArrayList<>();
            for (final CapturedFrame frame : result.capture().frames())
            {
                final Map<String, Object> f = new LinkedHashMap<>();
                f.put("timeNs", frame.timeNs());
                f.put("direction", frame.direction().name());
                f.put("opcode", null == frame.opcode() ? null : frame.opcode().name());
                f.put("psn", frame.psn());
                f.put("syndrome", frame.syndrome());
                f.put("msn", frame.msn());
                f.put("payloadLength", frame.payload().length);
                f.put("status", frame.status().name());
                f.put("fault", frame.fault());
                frames.add(f);
            }
            s.put("frames", frames);
            scenarios.add(s);
        }
        root.put("scenarios", scenarios);
        return root;
    }

    private void junit(final OutputStream out, final List<ScenarioResult> results) throws IOException
    {
        try
        {
            final XMLStreamWriter xml = XMLOutputFactory.newFactory().createXMLStreamWriter(out, "UTF-8");
            final Map<Verdict, Integer> counts = TerminalTable.counts(results);
            double totalSeconds = 0;
            for (final ScenarioResult result : results)
            {
                totalSeconds += result.durationNs() / 1e9;
            }
            xml.writeStartDocument("UTF-8", "1.0");
            xml.writeStartElement("testsuite");
            xml.writeAttribute("name", "roce conform (" + dut + ", profile " + profile + ")");
            xml.writeAttribute("tests", Integer.toString(results.size()));
            xml.writeAttribute("failures", Integer.toString(counts.get(Verdict.FAIL)));
            xml.writeAttribute("errors", "0");
            xml.writeAttribute("skipped", Integer.toString(counts.get(Verdict.SKIP)));
            xml.writeAttribute("time", Double.toString(totalSeconds));
            // JUnit has no verdict for a part of a rule not checked: the suite counts them as a property, and each
            // testcase names its own in system-out.
            xml.writeStartElement("properties");
            xml.writeStartElement("property");
            xml.writeAttribute("name", "notChecked");
            xml.writeAttribute("value", Integer.toString(TerminalTable.notCheckedCount(results)));
            xml.writeEndElement();
            xml.writeEndElement();
            for (final ScenarioResult result : results)
            {
                xml.writeStartElement("testcase");
                xml.writeAttribute("classname", "roce.conform." + result.scenario().side().suiteName());
                xml.writeAttribute("name", result.scenario().name());
                xml.writeAttribute("time", Double.toString(result.durationNs() / 1e9));
                if (Verdict.FAIL == result.verdict())
                {
                    xml.writeStartElement("failure");
                    xml.writeAttribute("message", result.reason());
                    xml.writeCharacters("step: " + result.failedAt() + "\n" + String.join("\n", result.notes()));
                    xml.writeEndElement();
                }
                else if (Verdict.SKIP == result.verdict())
                {
                    xml.writeStartElement("skipped");
                    xml.writeAttribute("message", result.reason());
                    xml.writeEndElement();
                }
                final List<String> said = new ArrayList<>();
                if (Verdict.DEVIATION == result.verdict())
                {
                    said.add("DEVIATION: " + result.reason());
                }
                for (final String unchecked : result.notChecked())
                {
                    said.add(Finding.NOT_CHECKED_PREFIX + unchecked);
                }
                if (!said.isEmpty())
                {
                    xml.writeStartElement("system-out");
                    xml.writeCharacters(String.join("\n", said));
                    xml.writeEndElement();
                }
                xml.writeEndElement();
            }
            xml.writeEndElement();
            xml.writeEndDocument();
            xml.close();
        }
        catch (final XMLStreamException ex)
        {
            throw new UncheckedIOException(new IOException("cannot write junit.xml: " + ex.getMessage(), ex));
        }
    }
}
