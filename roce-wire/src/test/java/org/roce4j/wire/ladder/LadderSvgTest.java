package org.roce4j.wire.ladder;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Test;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.header.AethHeader;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The SVG ladder: well-formed XML the JDK's parser reads back, one group per frame with the right shape for its
 * fate, findings numbered beside their frame and listed below, hostile text escaped, and the same bytes every time.
 */
class LadderSvgTest
{
    private static final String HOSTILE = "a <b> & \"c\" 'd' \u0001 ]]> </svg>";

    static Ladder everyFate()
    {
        final List<Ladder.Arrow> arrows = new ArrayList<>();
        arrows.add(new Ladder.Arrow(0, 1_000, true, FrameLabel.describe(Opcode.RC_SEND_ONLY, 5, true, -1, -1, 64),
            Ladder.Fate.DELIVERED, ""));
        arrows.add(new Ladder.Arrow(1, 2_000, false, FrameLabel.describe(Opcode.RC_ACKNOWLEDGE, 5, false,
            AethHeader.SYNDROME_ACK_UNLIMITED, 1, 0), Ladder.Fate.DROPPED, "dropped"));
        arrows.add(new Ladder.Arrow(2, 3_000, true, "RC_SEND_ONLY psn=0x5", Ladder.Fate.DUPLICATE, "duplicated"));
        arrows.add(new Ladder.Arrow(3, 4_000, true, HOSTILE, Ladder.Fate.CORRUPTED, "mutated: " + HOSTILE));
        arrows.add(new Ladder.Arrow(4, 1_504_000, false, "RC_ACKNOWLEDGE", Ladder.Fate.DELAYED, "delayed 500 ns"));
        final List<Ladder.Finding> findings = List.of(
            new Ladder.Finding(Ladder.Kind.VIOLATION, "frame #3 was " + HOSTILE, 3),
            new Ladder.Finding(Ladder.Kind.OK, "MSN never decreased", -1),
            new Ladder.Finding(Ladder.Kind.NOTE, "x ".repeat(200), 3));
        return new Ladder("scenario " + HOSTILE, "peer", "DUT " + HOSTILE, arrows, findings, List.of("a note"));
    }

    static Document parse(final String svg) throws Exception
    {
        final DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        return factory.newDocumentBuilder().parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
    }

    static List<Element> withClass(final Document doc, final String tag, final String cssClass)
    {
        final List<Element> out = new ArrayList<>();
        final NodeList nodes = doc.getElementsByTagNameNS(LadderSvg.NAMESPACE, tag);
        for (int i = 0; i < nodes.getLength(); i++)
        {
            final Element element = (Element)nodes.item(i);
            if (List.of(element.getAttribute("class").split(" ")).contains(cssClass))
            {
                out.add(element);
            }
        }
        return out;
    }

    @Test
    void parsesAsXmlWithOneGroupPerFrameShapedByItsFate() throws Exception
    {
        final Document doc = parse(LadderSvg.document(everyFate()));

        assertEquals("svg", doc.getDocumentElement().getLocalName());
        final List<Element> frames = withClass(doc, "g", "frame");
        assertEquals(5, frames.size());
        final String[] fates = {"delivered", "dropped", "duplicate", "corrupted", "delayed"};
        for (int i = 0; i < frames.size(); i++)
        {
            final Element frame = frames.get(i);
            assertEquals(Integer.toString(i), frame.getAttribute("data-frame"));
            assertTrue(frame.getAttribute("class").contains(fates[i]), frame.getAttribute("class"));
            final int heads = frame.getElementsByTagNameNS(LadderSvg.NAMESPACE, "polygon").getLength();
            int crosses = 0;
            final NodeList lines = frame.getElementsByTagNameNS(LadderSvg.NAMESPACE, "line");
            for (int j = 0; j < lines.getLength(); j++)
            {
                crosses += "cross".equals(((Element)lines.item(j)).getAttribute("class")) ? 1 : 0;
            }
            assertEquals(1 == i ? 0 : 1, heads, fates[i] + ": an arrowhead unless dropped");
            assertEquals(1 == i ? 2 : 0, crosses, fates[i] + ": an X only when dropped");
        }
        final Element dropped = withClass(doc, "line", "arrow").get(1);
        assertEquals(450, Integer.parseInt(dropped.getAttribute("x2")), "a dropped arrow stops half-way");
        assertTrue(frames.get(3).getAttribute("class").contains("violation"));
        assertTrue(frames.get(3).getTextContent().contains("mutated: " + HOSTILE.replace('\u0001', '\uFFFD')),
            frames.get(3).getTextContent());
        assertTrue(frames.get(0).getTextContent().contains("RC_SEND_ONLY psn=0x5 A len=64"));
        assertTrue(frames.get(1).getTextContent().contains("RC_ACKNOWLEDGE psn=0x5 ACK (credits: unlimited) msn=1"));
        assertTrue(frames.get(4).getTextContent().contains("#4 +1503.0 us"), frames.get(4).getTextContent());
    }

    @Test
    void findingsAreNumberedBesideTheirFrameAndListedBelow() throws Exception
    {
        final Document doc = parse(LadderSvg.element(everyFate()));

        final List<Element> frames = withClass(doc, "g", "frame");
        assertEquals(2, withClass(doc, "g", "finding").stream().filter(g -> frames.get(3).equals(g.getParentNode()))
            .count(), "findings 1 and 3 point at frame #3");
        assertEquals(2, withClass(doc, "g", "finding").stream().filter(g -> g.getAttribute("class")
            .contains("violation")).count(), "the violation's disc beside its frame and in the list");
        assertEquals(5, withClass(doc, "g", "finding").size(), "two beside frame #3, three in the list");
        final List<Element> texts = withClass(doc, "text", "finding-text");
        assertTrue(texts.size() > 3, "the long finding wraps onto several lines: " + texts.size());
        assertEquals("MSN never decreased", texts.get(1).getTextContent());
        assertEquals(1, withClass(doc, "text", "note").size());
    }

    @Test
    void sameLadderSameBytes()
    {
        assertEquals(LadderSvg.document(everyFate()), LadderSvg.document(everyFate()));
    }

    @Test
    void anEmptyLadderSaysSo() throws Exception
    {
        final Document doc = parse(LadderSvg.document(new Ladder("empty", "a", "b", List.of(), List.of(),
            List.of())));

        assertEquals(0, withClass(doc, "g", "frame").size());
        assertTrue(doc.getDocumentElement().getTextContent().contains("no RoCEv2 frame"));
    }

    @Test
    void timesAndWrapping()
    {
        assertEquals("+0.0 us", LadderSvg.micros(0));
        assertEquals("+12.3 us", LadderSvg.micros(12_345));
        assertEquals("-1.0 us", LadderSvg.micros(-1_000));
        assertEquals(List.of("aa bb", "cc"), LadderSvg.wrap("aa bb cc", 5));
        assertEquals(List.of("abcdefgh"), LadderSvg.wrap("abcdefgh", 3));
    }
}
