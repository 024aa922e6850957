package org.roce4j.conform.report;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.UnaryOperator;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roce4j.conform.Capture;
import org.roce4j.conform.Finding;
import org.roce4j.conform.PeerProfile;
import org.roce4j.conform.Scenario;
import org.roce4j.conform.ScenarioResult;
import org.roce4j.conform.ScenarioRunner;
import org.roce4j.conform.Side;
import org.roce4j.conform.Steps;
import org.roce4j.conform.Verdict;
import org.roce4j.conform.catalogue.Catalogue;
import org.roce4j.conform.dut.SelfDut;
import org.roce4j.wire.ladder.Ladder;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The HTML report and the conform ladder: the index links every scenario's page, a page holds its findings and an
 * inline SVG that parses as XML with the injected drop drawn, and text from scenarios is escaped.
 */
class HtmlReportTest
{
    private static final String HOSTILE = "<script>alert('x')</script> & \"q\"";

    private static ScenarioResult run(final String name)
    {
        return new ScenarioRunner(() -> SelfDut.testbed(UnaryOperator.identity()), PeerProfile.NONE)
            .run(Catalogue.named(name));
    }

    private static String inlineSvg(final String page)
    {
        final int start = page.indexOf("<svg ");
        final int end = page.indexOf("</svg>") + "</svg>".length();
        assertTrue(start > 0 && end > start, "an inline <svg> in the page");
        return page.substring(start, end);
    }

    private static Document xml(final String text) throws Exception
    {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder()
            .parse(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void indexLinksEveryPageAndAPageDrawsItsDroppedAck(@TempDir final Path dir) throws Exception
    {
        final List<ScenarioResult> results = List.of(run("requester.lost-ack-retransmit"),
            run("responder.bad-icrc-dropped"));

        new ReportWriter("DUT & co", "none").write(dir, results);

        final String index = Files.readString(dir.resolve("index.html"));
        assertTrue(index.contains("DUT: DUT &amp; co"), index);
        for (final ScenarioResult result : results)
        {
            final String href = HtmlReport.PAGES + "/" + result.scenario().name() + ".html";
            assertTrue(index.contains("<a href=\"" + href + "\">" + result.scenario().name() + "</a>"), index);
            assertTrue(Files.isRegularFile(dir.resolve(href)), href);
        }
        final Path pages = dir.resolve(HtmlReport.PAGES);
        final String page = Files.readString(pages.resolve("requester.lost-ack-retransmit.html"));
        assertTrue(page.contains("<li class=\"ok\">OK: retransmission of PSN 0x"), page);
        assertTrue(page.contains("<a href=\"../pcap/requester.lost-ack-retransmit.pcap\">"), page);
        final Document svg = xml(inlineSvg(page));
        final NodeList groups = svg.getElementsByTagName("g");
        int frames = 0;
        int dropped = 0;
        for (int i = 0; i < groups.getLength(); i++)
        {
            final String cssClass = ((Element)groups.item(i)).getAttribute("class");
            frames += cssClass.startsWith("frame ") ? 1 : 0;
            dropped += cssClass.startsWith("frame dropped") ? 1 : 0;
        }
        assertEquals(results.get(0).capture().size(), frames);
        assertEquals(1, dropped, "the ACK the link dropped");
        final String icrcPage = Files.readString(pages.resolve("responder.bad-icrc-dropped.html"));
        assertTrue(inlineSvg(icrcPage).contains("class=\"frame corrupted"), icrcPage);
    }

    @Test
    void theLadderOfAResultMarksFaultsAndFindings()
    {
        final ScenarioResult lost = run("requester.lost-ack-retransmit");

        final Ladder ladder = ConformLadder.of(lost, "dut");

        assertEquals(ConformLadder.PEER, ladder.left());
        assertEquals(lost.capture().size(), ladder.arrows().size());
        assertEquals(1, ladder.arrows().stream().filter(a -> Ladder.Fate.DROPPED == a.fate()).count());
        assertFalse(ladder.arrows().get(0).leftToRight(), "the DUT's WRITE goes right to left");
        assertEquals(Ladder.Kind.OK, ladder.findings().get(0).kind());
    }

    @Test
    void scenarioTextIsEscapedAndAnUnstatedFailureIsAViolation() throws Exception
    {
        final Scenario scenario = Scenario.builder("responder.hostile").rule("9.9.9", HOSTILE).side(Side.RESPONDER)
            .summary(HOSTILE).steps(Steps.connect()).build();
        final ScenarioResult result = new ScenarioResult(scenario, Verdict.FAIL, HOSTILE, "step " + HOSTILE,
            List.of(Finding.violation("other " + HOSTILE), Finding.ok(HOSTILE), Finding.note(HOSTILE)), new Capture(),
            0);
        final HtmlReport html = new HtmlReport(HOSTILE, HOSTILE);

        final String index = html.index(List.of(result));
        final String page = html.page(result);

        for (final String text : List.of(index, page))
        {
            assertFalse(text.contains("<script>"), text);
            assertTrue(text.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;"), text);
        }
        final Ladder ladder = ConformLadder.of(result, "dut");
        assertEquals(List.of(Ladder.Kind.VIOLATION, Ladder.Kind.OK, Ladder.Kind.NOTE, Ladder.Kind.VIOLATION),
            ladder.findings().stream().map(Ladder.Finding::kind).toList());
        assertTrue(ladder.findings().get(3).text().startsWith(HOSTILE + " (step: step "));
        assertTrue(xml(inlineSvg(page)).getDocumentElement().getTextContent()
            .contains("no RoCEv2 frame between the two sides"));
        assertEquals("a%2Fb%20c.html", HtmlReport.fileUrl("a/b c.html"));
    }
}
