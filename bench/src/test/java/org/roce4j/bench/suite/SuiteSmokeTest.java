package org.roce4j.bench.suite;

import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import javax.imageio.ImageIO;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Runs the suite's smoke plan end to end (memory fabric, two sizes, every operation, a small QP axis, a 64-QP scale
 * run) and checks what it writes: the report's sections, a JSON file that parses and holds every cell, three PNG
 * plots that decode and have something drawn, and a progress bar that reached 100%. Speed is not asserted.
 */
class SuiteSmokeTest
{
    @TempDir
    Path dir;

    @Test
    void smokePlanWritesReportJsonAndPlots() throws Exception
    {
        final ByteArrayOutputStream progress = new ByteArrayOutputStream();
        final SuitePlan plan = SuitePlan.named("smoke");
        final SuiteResults results = new SuiteMain(plan, dir, new PrintStream(progress, true, StandardCharsets.UTF_8))
            .run("SuiteSmokeTest");

        assertEquals(List.of(), results.notes(), "no cell failed");
        assertTrue(progress.toString(StandardCharsets.UTF_8).contains("100%"), "progress bar reached 100%");

        final String md = Files.readString(dir.resolve(ReportWriter.RESULTS_MD));
        for (final String section : List.of("# roce4j bench suite results", "| load average at start |",
            "## Engine headline figures", "## Baselines", "## memory link", "## Atomics", "## Throughput against",
            "## Scale: 64 connected RC QPs", "![bandwidth vs message size](results/bandwidth-vs-size.png)"))
        {
            assertTrue(md.contains(section), "RESULTS.md lacks " + section);
        }
        assertTrue(md.contains("| 4 KiB |"), "a row per size");

        final Object parsed = new Json(Files.readString(dir.resolve(ReportWriter.RESULTS_DIR)
            .resolve(ReportWriter.JSON))).parse();
        final Map<?, ?> json = (Map<?, ?>)parsed;
        assertEquals("smoke", ((Map<?, ?>)json.get("environment")).get("plan"));
        final List<?> throughput = (List<?>)json.get("throughput");
        // WRITE, READ, SEND at 8 B and 4 KiB, and the two atomics at 8 B.
        assertEquals(3 * 2 + 2, throughput.size());
        for (final Object row : throughput)
        {
            final Map<?, ?> cell = (Map<?, ?>)row;
            assertEquals("memory", cell.get("link"));
            assertTrue(((Number)cell.get("messagesPerSecond")).doubleValue() >= 0);
        }
        assertEquals(3 * 2 + 2, ((List<?>)json.get("latency")).size());
        assertEquals(plan.qpCounts().size(), ((List<?>)json.get("qpAxis")).size());
        assertEquals(plan.allSizes().size(), ((List<?>)json.get("baselines")).size());
        final Map<?, ?> scale = (Map<?, ?>)json.get("scale");
        assertEquals(64L, ((Number)scale.get("qps")).longValue());
        assertEquals(plan.scaleCostQps().size(), ((List<?>)scale.get("costs")).size());
        assertNotNull(json.get("engine"));

        for (final String png : ReportWriter.PLOTS)
        {
            final BufferedImage image = ImageIO.read(dir.resolve(ReportWriter.RESULTS_DIR).resolve(png).toFile());
            assertNotNull(image, png + " decodes as an image");
            assertEquals(LineChart.WIDTH, image.getWidth());
            assertEquals(LineChart.HEIGHT, image.getHeight());
            assertTrue(colouredPixels(image) > 500, png + " has lines drawn in colour");
        }
    }

    private static int colouredPixels(final BufferedImage image)
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
                if (Math.max(r, Math.max(g, b)) - Math.min(r, Math.min(g, b)) > 60)
                {
                    count++;
                }
            }
        }
        return count;
    }

    /**
     * A strict JSON (RFC 8259) reader for the test: objects become maps, arrays lists, numbers doubles; anything
     * malformed throws.
     */
    private static final class Json
    {
        private final String text;
        private int at;

        Json(final String text)
        {
            this.text = text;
        }

        Object parse()
        {
            final Object value = value();
            skipSpace();
            if (at != text.length())
            {
                throw error("trailing characters");
            }
            return value;
        }

        private Object value()
        {
            skipSpace();
            if (at >= text.length())
            {
                throw error("unexpected end");
            }
            final char c = text.charAt(at);
            switch (c)
            {
                case '{':
                    return object();
                case '[':
                    return array();
                case '"':
                    return string();
                case 't':
                    return literal("true", Boolean.TRUE);
                case 'f':
                    return literal("false", Boolean.FALSE);
                case 'n':
                    return literal("null", null);
                default:
                    return number();
            }
        }

        private Map<String, Object> object()
        {
            final Map<String, Object> map = new LinkedHashMap<>();
            at++;
            skipSpace();
            if (peek('}'))
            {
                at++;
                return map;
            }
            while (true)
            {
                skipSpace();
                final String key = string();
                skipSpace();
                expect(':');
                assertFalse(map.containsKey(key), "duplicate key " + key);
                map.put(key, value());
                skipSpace();
                if (peek(','))
                {
                    at++;
                    continue;
                }
                expect('}');
                return map;
            }
        }

        private List<Object> array()
        {
            final List<Object> list = new ArrayList<>();
            at++;
            skipSpace();
            if (peek(']'))
            {
                at++;
                return list;
            }
            while (true)
            {
                list.add(value());
                skipSpace();
                if (peek(','))
                {
                    at++;
                    continue;
                }
                expect(']');
                return list;
            }
        }

        private String string()
        {
            expect('"');
            final StringBuilder out = new StringBuilder();
            while (true)
            {
                if (at >= text.length())
                {
                    throw error("unterminated string");
                }
                final char c = text.charAt(at++);
                if ('"' == c)
                {
                    return out.toString();
                }
                if ('\\' == c)
                {
                    final char e = text.charAt(at++);
                    switch (e)
                    {
                        case '"':
                        case '\\':
                        case '/':
                            out.append(e);
                            break;
                        case 'n':
                            out.append('\n');
                            break;
                        case 'r':
                            out.append('\r');
                            break;
                        case 't':
                            out.append('\t');
                            break;
                        case 'b':
                            out.append('\b');
                            break;
                        case 'f':
                            out.append('\f');
                            break;
                        case 'u':
                            out.append((char)Integer.parseInt(text.substring(at, at + 4), 16));
                            at += 4;
                            break;
                        default:
                            throw error("bad escape \\" + e);
                    }
                }
                else if (c < 0x20)
                {
                    throw error("control character in string");
                }
                else
                {
                    out.append(c);
                }
            }
        }

        private Double number()
        {
            final int start = at;
            while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0)
            {
                at++;
            }
            final String token = text.substring(start, at);
            if (!token.matches("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?"))
            {
                throw error("bad number '" + token + "'");
            }
            return Double.valueOf(token);
        }

        private Object literal(final String word, final Object value)
        {
            if (!text.startsWith(word, at))
            {
                throw error("bad literal");
            }
            at += word.length();
            return value;
        }

        private boolean peek(final char c)
        {
            return at < text.length() && text.charAt(at) == c;
        }

        private void expect(final char c)
        {
            if (!peek(c))
            {
                throw error("expected '" + c + "'");
            }
            at++;
        }

        private void skipSpace()
        {
            while (at < text.length() && Character.isWhitespace(text.charAt(at)))
            {
                at++;
            }
        }

        private IllegalStateException error(final String what)
        {
            return new IllegalStateException("JSON " + what + " at " + at + ": " +
                text.substring(Math.max(0, at - 20), Math.min(text.length(), at + 20)));
        }
    }
}
