package org.roce4j.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roce4j.wire.Vectors;
import org.roce4j.wire.ladder.LadderSvg;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code roce decode FILE --ladder OUT.svg}: the SVG beside the usual output, numbered as decode numbers frames, and
 * the usual exit codes when the capture or the SVG's place is wrong.
 */
class DecodeLadderTest
{
    @TempDir
    Path temp;

    @Test
    void rcPingpongLadderHasFourArrowsNumberedAsDecodeNumbersThem() throws Exception
    {
        final Path svg = temp.resolve("pingpong.svg");
        final Cli.Result result = Cli.run("decode", "--summary",
            Cli.copyResource("/vectors/" + Vectors.RXE_VS_PEER, temp).toString(), "--ladder", svg.toString());

        assertEquals(0, result.exitCode(), result.err());
        assertEquals("", result.err());
        assertEquals("summary: frames=6 roce=4 icrc_ok=4 icrc_bad=0", result.lastOutLine());
        final Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(svg.toFile());
        assertEquals("svg", doc.getDocumentElement().getTagName());
        assertEquals(LadderSvg.NAMESPACE, doc.getDocumentElement().getAttribute("xmlns"));
        final List<String> numbers = new ArrayList<>();
        final NodeList groups = doc.getElementsByTagName("g");
        for (int i = 0; i < groups.getLength(); i++)
        {
            final Element group = (Element)groups.item(i);
            if (group.getAttribute("class").startsWith("frame"))
            {
                numbers.add(group.getAttribute("data-frame"));
                final String number = group.getAttribute("data-frame");
                assertTrue(result.outLines().stream().anyMatch(line -> line.matches(" *" + number + " [^A-Z]*RC_.*")),
                    "decode printed RoCEv2 frame " + group.getAttribute("data-frame") + "\n" + result.out());
            }
        }
        assertEquals(4, numbers.size(), numbers.toString());
        assertTrue(doc.getDocumentElement().getTextContent().contains("10.77.0.2"));
        final String again = temp.resolve("again.svg").toString();
        Cli.run("decode", temp.resolve(Vectors.RXE_VS_PEER).toString(), "--ladder", again);
        assertEquals(Files.readString(svg), Files.readString(Path.of(again)), "the same capture, the same bytes");
    }

    @Test
    void notACaptureFailsAsDecodeDoesAndWritesNoLadder() throws IOException
    {
        final Path garbage = temp.resolve("garbage.pcap");
        Files.writeString(garbage, "this is not a capture file, just some text\n");
        final Path svg = temp.resolve("garbage.svg");

        final Cli.Result result = Cli.run("decode", garbage.toString(), "--ladder", svg.toString());

        assertEquals(DecodeCommand.EXIT_UNREADABLE, result.exitCode());
        assertEquals("roce decode: " + garbage + ": not a pcap or pcapng file (magic 0x74686973)",
            result.err().strip());
        assertFalse(Files.exists(svg));
    }

    @Test
    void anUnwritableLadderIsAnErrorAfterTheDecode()
    {
        final Path svg = temp.resolve("no-such-dir").resolve("x.svg");

        final Cli.Result result = Cli.run("decode", Cli.copyResource("/vectors/" + Vectors.RXE_VS_PEER, temp)
            .toString(), "--ladder", svg.toString());

        assertEquals(DecodeCommand.EXIT_UNREADABLE, result.exitCode());
        assertEquals("roce decode: cannot write the ladder to " + svg + ": no such directory", result.err().strip());
        assertEquals("summary: frames=6 roce=4 icrc_ok=4 icrc_bad=0", result.lastOutLine());
    }

    @Test
    void helpNamesTheOption()
    {
        final Cli.Result result = Cli.run("decode", "--help");

        assertEquals(0, result.exitCode());
        assertTrue(result.out().contains("--ladder=OUT.svg"), result.out());
    }
}
