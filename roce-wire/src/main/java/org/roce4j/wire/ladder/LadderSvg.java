package org.roce4j.wire.ladder;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Draws a {@link Ladder} as SVG text: a title, the two sides' names in boxes over their vertical lifelines, then one
 * row per frame with time flowing down. Each frame is an arrow from its sender's lifeline to the other, labelled
 * above with {@link FrameLabel}'s text and numbered on the left with its capture number and time since the first
 * frame. A dropped frame's arrow stops half-way with an X; duplicates, corrupted and delayed frames are drawn in
 * their own colour with the fault's words under the arrow. Findings that point at a frame put a numbered disc beside
 * its row (red for a violation, which also tints the row; green for a rule that held; grey for a remark), and every
 * finding is listed under the diagram with its number.
 *
 * <p>Plain SVG text rather than a Graphics2D library (JFreeSVG, Batik): roce-wire's only dependency is Agrona, the
 * drawing is a few lines, rectangles and texts, and writing the elements directly keeps the semantic structure a
 * reader or a test can query ({@code <g class="frame dropped" data-frame="3">} with a {@code <title>} tooltip),
 * which a Graphics2D recorder flattens into anonymous paths. Every coordinate is an integer and nothing depends on
 * hashing or the clock, so the same ladder gives the same bytes. Text goes through {@link Markup#escape}.
 */
public final class LadderSvg
{
    /** The SVG namespace. */
    public static final String NAMESPACE = "http://www.w3.org/2000/svg";

    private static final int WIDTH_PX = 900;
    private static final int LEFT_X = 200;
    private static final int RIGHT_X = 700;
    /** First findings disc, right of the right lifeline. */
    private static final int MARK_X = 730;
    private static final int MARK_STEP_PX = 22;
    private static final int MARK_RADIUS_PX = 9;
    private static final int TIME_X = 8;
    private static final int HEADER_Y = 30;
    private static final int HEADER_HEIGHT_PX = 24;
    private static final int HEADER_WIDTH_PX = 290;
    /** Characters of bold 12 px monospace that fit in a side's box; a longer name is cut (the title has it whole). */
    private static final int HEADER_CHARS = 38;
    /** Where the first row starts: below the header boxes. */
    private static final int TOP_Y = 72;
    private static final int ROW_PX = 52;
    /** How far an arrow falls while it crosses: time passes on the wire. */
    private static final int SLANT_PX = 12;
    private static final int HEAD_LENGTH_PX = 10;
    private static final int HEAD_HALF_WIDTH_PX = 4;
    private static final int CROSS_PX = 6;
    private static final int LINE_PX = 16;
    /** Characters of 12 px monospace that fit across the diagram (about 7.2 px each). */
    private static final int WRAP_CHARS = 118;

    private static final String INK = "#222222";
    private static final String MUTED = "#666666";

    private LadderSvg()
    {
    }

    /**
     * @param ladder what to draw.
     * @return a standalone SVG file: XML declaration, then the {@code <svg>} element.
     */
    public static String document(final Ladder ladder)
    {
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + element(ladder);
    }

    /**
     * @param ladder what to draw.
     * @return the {@code <svg>} element alone (with its namespace), to put inline in an HTML page.
     */
    public static String element(final Ladder ladder)
    {
        final List<Ladder.Arrow> arrows = ladder.arrows();
        final int footerLines = footer(null, ladder, 0);
        final int rows = Math.max(1, arrows.size());
        final int rowsEndY = TOP_Y + rows * ROW_PX;
        final int heightPx = rowsEndY + 16 + footerLines * LINE_PX + 8;
        final StringBuilder svg = new StringBuilder(4096 + arrows.size() * 600);
        svg.append("<svg xmlns=\"").append(NAMESPACE).append("\" class=\"ladder\" width=\"").append(WIDTH_PX)
            .append("\" height=\"").append(heightPx).append("\" viewBox=\"0 0 ").append(WIDTH_PX).append(' ')
            .append(heightPx).append("\" font-family=\"monospace\" font-size=\"12\" role=\"img\" aria-label=\"")
            .append(Markup.escape("ladder diagram: " + ladder.title())).append("\">\n");
        svg.append("<title>").append(Markup.escape(ladder.title() + " (" + ladder.left() + ", " + ladder.right() +
            ")")).append("</title>\n");
        svg.append("<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n");
        text(svg, TIME_X, 18, "start", "bold", INK, ladder.title());
        side(svg, "left", LEFT_X, ladder.left());
        side(svg, "right", RIGHT_X, ladder.right());
        for (final int x : new int[] {LEFT_X, RIGHT_X})
        {
            svg.append("<line class=\"lifeline\" x1=\"").append(x).append("\" y1=\"").append(HEADER_Y +
                HEADER_HEIGHT_PX).append("\" x2=\"").append(x).append("\" y2=\"").append(rowsEndY)
                .append("\" stroke=\"").append(MUTED).append("\" stroke-width=\"2\"/>\n");
        }
        if (arrows.isEmpty())
        {
            text(svg, (LEFT_X + RIGHT_X) / 2, TOP_Y + ROW_PX / 2, "middle", "normal", MUTED,
                "no RoCEv2 frame between the two sides");
        }
        final long startNs = arrows.isEmpty() ? 0 : arrows.get(0).timeNs();
        for (int i = 0; i < arrows.size(); i++)
        {
            arrow(svg, ladder, arrows.get(i), TOP_Y + i * ROW_PX + 18, startNs);
        }
        footer(svg, ladder, rowsEndY + 16 + 4);
        svg.append("</svg>\n");
        return svg.toString();
    }

    private static void side(final StringBuilder svg, final String which, final int x, final String name)
    {
        svg.append("<rect class=\"side ").append(which).append("\" x=\"").append(x - HEADER_WIDTH_PX / 2)
            .append("\" y=\"").append(HEADER_Y).append("\" width=\"").append(HEADER_WIDTH_PX).append("\" height=\"")
            .append(HEADER_HEIGHT_PX).append("\" rx=\"4\" fill=\"#eef2f7\" stroke=\"").append(INK).append("\"/>\n");
        text(svg, x, HEADER_Y + 16, "middle", "bold", INK, name.length() <= HEADER_CHARS ? name :
            name.substring(0, HEADER_CHARS - 3) + "...");
    }

    private static void arrow(final StringBuilder svg, final Ladder ladder, final Ladder.Arrow arrow, final int y0,
        final long startNs)
    {
        final int x0 = arrow.leftToRight() ? LEFT_X : RIGHT_X;
        final int x1 = arrow.leftToRight() ? RIGHT_X : LEFT_X;
        final int y1 = y0 + SLANT_PX;
        final int sign = arrow.leftToRight() ? 1 : -1;
        final String colour = colour(arrow.fate());
        final String fateClass = arrow.fate().name().toLowerCase(Locale.ROOT);
        final List<Integer> marks = new ArrayList<>();
        boolean violation = false;
        for (int k = 0; k < ladder.findings().size(); k++)
        {
            final Ladder.Finding finding = ladder.findings().get(k);
            if (finding.frame() == arrow.frame())
            {
                marks.add(k);
                violation |= Ladder.Kind.VIOLATION == finding.kind();
            }
        }
        svg.append("<g class=\"frame ").append(fateClass).append(violation ? " violation" : "")
            .append("\" data-frame=\"").append(arrow.frame()).append("\">\n<title>")
            .append(Markup.escape("#" + arrow.frame() + " " + (arrow.leftToRight() ? ladder.left() + " to " +
                ladder.right() : ladder.right() + " to " + ladder.left()) + ": " + arrow.label() +
                (arrow.fateNote().isEmpty() ? "" : " [" + arrow.fateNote() + "]"))).append("</title>\n");
        if (violation)
        {
            svg.append("<rect class=\"violation-row\" x=\"0\" y=\"").append(y0 - 18).append("\" width=\"")
                .append(WIDTH_PX).append("\" height=\"").append(ROW_PX).append("\" fill=\"#fde2e2\"/>\n");
        }
        text(svg, TIME_X, y0 + 4, "start", "normal", MUTED, "#" + arrow.frame() + " " +
            micros(arrow.timeNs() - startNs));
        text(svg, (LEFT_X + RIGHT_X) / 2, y0 - 4, "middle", "normal", colour, arrow.label());
        if (Ladder.Fate.DROPPED == arrow.fate())
        {
            final int xm = (x0 + x1) / 2;
            final int ym = (y0 + y1) / 2;
            line(svg, "arrow", x0, y0, xm, ym, colour, " stroke-dasharray=\"6 4\"");
            line(svg, "cross", xm - CROSS_PX, ym - CROSS_PX, xm + CROSS_PX, ym + CROSS_PX, colour, "");
            line(svg, "cross", xm - CROSS_PX, ym + CROSS_PX, xm + CROSS_PX, ym - CROSS_PX, colour, "");
        }
        else
        {
            line(svg, "arrow", x0, y0, x1 - sign * HEAD_LENGTH_PX, y1, colour, "");
            svg.append("<polygon class=\"head\" points=\"").append(x1).append(',').append(y1).append(' ')
                .append(x1 - sign * HEAD_LENGTH_PX).append(',').append(y1 - HEAD_HALF_WIDTH_PX).append(' ')
                .append(x1 - sign * HEAD_LENGTH_PX).append(',').append(y1 + HEAD_HALF_WIDTH_PX)
                .append("\" fill=\"").append(colour).append("\"/>\n");
        }
        if (Ladder.Fate.DELIVERED != arrow.fate())
        {
            text(svg, (LEFT_X + RIGHT_X) / 2, y1 + 13, "middle", "italic", colour,
                arrow.fateNote().isEmpty() ? fateClass : arrow.fateNote());
        }
        for (int j = 0; j < marks.size(); j++)
        {
            disc(svg, MARK_X + j * MARK_STEP_PX, y0 + SLANT_PX / 2, marks.get(j),
                ladder.findings().get(marks.get(j)).kind());
        }
        svg.append("</g>\n");
    }

    /**
     * The notes and the numbered findings under the diagram.
     *
     * @param svg    where to write, or null to count the lines only.
     * @param ladder the ladder.
     * @param firstY the first line's baseline.
     * @return the number of lines.
     */
    private static int footer(final StringBuilder svg, final Ladder ladder, final int firstY)
    {
        int lineCount = 0;
        for (final String note : ladder.notes())
        {
            for (final String line : wrap(note, WRAP_CHARS))
            {
                if (null != svg)
                {
                    svg.append("<text class=\"note\" x=\"").append(TIME_X).append("\" y=\"")
                        .append(firstY + lineCount * LINE_PX).append("\" fill=\"").append(MUTED).append("\">")
                        .append(Markup.escape(line)).append("</text>\n");
                }
                lineCount++;
            }
        }
        for (int k = 0; k < ladder.findings().size(); k++)
        {
            final Ladder.Finding finding = ladder.findings().get(k);
            final List<String> lines = wrap(finding.text(), WRAP_CHARS - 5);
            for (int i = 0; i < lines.size(); i++)
            {
                final int y = firstY + lineCount * LINE_PX;
                if (null != svg)
                {
                    if (0 == i)
                    {
                        disc(svg, TIME_X + MARK_RADIUS_PX, y - 4, k, finding.kind());
                    }
                    svg.append("<text class=\"finding-text\" x=\"").append(TIME_X + 2 * MARK_RADIUS_PX + 8)
                        .append("\" y=\"").append(y).append("\" fill=\"")
                        .append(Ladder.Kind.VIOLATION == finding.kind() ? "#b00000" : INK).append("\">")
                        .append(Markup.escape(lines.get(i))).append("</text>\n");
                }
                lineCount++;
            }
        }
        return lineCount;
    }

    /** A numbered disc (finding index + 1). */
    private static void disc(final StringBuilder svg, final int cx, final int cy, final int index,
        final Ladder.Kind kind)
    {
        final String fill = Ladder.Kind.VIOLATION == kind ? "#c00000" : Ladder.Kind.OK == kind ? "#2e7d32" :
            "#777777";
        final int y = cy;
        svg.append("<g class=\"finding ").append(kind.name().toLowerCase(Locale.ROOT))
            .append("\"><circle cx=\"").append(cx).append("\" cy=\"").append(y).append("\" r=\"")
            .append(MARK_RADIUS_PX).append("\" fill=\"").append(fill).append("\"/><text x=\"").append(cx)
            .append("\" y=\"").append(y).append("\" dy=\"4\" text-anchor=\"middle\" font-size=\"10\" fill=\"#ffffff\">")
            .append(index + 1).append("</text></g>\n");
    }

    private static void line(final StringBuilder svg, final String cssClass, final int x1, final int y1, final int x2,
        final int y2, final String colour, final String extra)
    {
        svg.append("<line class=\"").append(cssClass).append("\" x1=\"").append(x1).append("\" y1=\"").append(y1)
            .append("\" x2=\"").append(x2).append("\" y2=\"").append(y2).append("\" stroke=\"").append(colour)
            .append("\" stroke-width=\"2\"").append(extra).append("/>\n");
    }

    private static void text(final StringBuilder svg, final int x, final int y, final String anchor,
        final String style, final String colour, final String content)
    {
        svg.append("<text x=\"").append(x).append("\" y=\"").append(y).append("\" text-anchor=\"").append(anchor)
            .append('"');
        if ("bold".equals(style))
        {
            svg.append(" font-weight=\"bold\"");
        }
        else if ("italic".equals(style))
        {
            svg.append(" font-style=\"italic\"");
        }
        svg.append(" fill=\"").append(colour).append("\">").append(Markup.escape(content)).append("</text>\n");
    }

    private static String colour(final Ladder.Fate fate)
    {
        switch (fate)
        {
            case DROPPED:
                return "#c00000";
            case DUPLICATE:
                return "#c06000";
            case CORRUPTED:
                return "#7b1fa2";
            case DELAYED:
                return "#1565c0";
            default:
                return INK;
        }
    }

    /**
     * @param deltaNs nanoseconds since the first frame.
     * @return e.g. {@code +12.3 us}, exact to 0.1 us without floating point (the same bytes everywhere).
     */
    static String micros(final long deltaNs)
    {
        final long abs = Math.abs(deltaNs);
        return (deltaNs < 0 ? "-" : "+") + abs / 1000 + "." + abs % 1000 / 100 + " us";
    }

    /**
     * Break text at spaces into lines of at most {@code width} characters (a longer word stays whole).
     */
    static List<String> wrap(final String text, final int width)
    {
        final List<String> lines = new ArrayList<>();
        final StringBuilder line = new StringBuilder(width);
        for (final String word : text.replace('\n', ' ').split(" ", -1))
        {
            if (line.length() > 0 && line.length() + 1 + word.length() > width)
            {
                lines.add(line.toString());
                line.setLength(0);
            }
            if (line.length() > 0)
            {
                line.append(' ');
            }
            line.append(word);
        }
        lines.add(line.toString());
        return lines;
    }
}
