package org.roce4j.bench.suite;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.Stroke;
import java.awt.geom.Path2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.DoubleFunction;

import javax.imageio.ImageIO;

/**
 * A line chart drawn with Java2D into a PNG: log-2 or linear x axis, log-10 or linear y axis, one coloured line with
 * point markers per series, dashed lines for baselines, and a legend. Headless: needs no display.
 */
final class LineChart
{
    /** Image width in pixels. */
    static final int WIDTH = 1100;
    /** Image height in pixels. */
    static final int HEIGHT = 650;
    private static final int LEFT = 90;
    private static final int RIGHT = 270;
    private static final int TOP = 50;
    private static final int BOTTOM = 70;
    private static final Color[] PALETTE =
        {
            new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c), new Color(0xff7f0e), new Color(0x9467bd),
            new Color(0x8c564b), new Color(0xe377c2), new Color(0x17becf), new Color(0xbcbd22), new Color(0x7f7f7f),
            new Color(0x393b79), new Color(0xad494a)
        };

    private record Series(String name, double[] xs, double[] ys, boolean dashed)
    {
    }

    private final String title;
    private final String xLabel;
    private final String yLabel;
    private final boolean logX;
    private final boolean logY;
    private final DoubleFunction<String> xTickLabel;
    private final List<Series> series = new ArrayList<>();

    LineChart(
        final String title, final String xLabel, final String yLabel, final boolean logX, final boolean logY,
        final DoubleFunction<String> xTickLabel)
    {
        this.title = title;
        this.xLabel = xLabel;
        this.yLabel = yLabel;
        this.logX = logX;
        this.logY = logY;
        this.xTickLabel = xTickLabel;
    }

    /**
     * Add a series; points with a non-positive value on a log axis (or non-finite) are skipped.
     */
    LineChart add(final String name, final double[] xs, final double[] ys, final boolean dashed)
    {
        if (xs.length != ys.length)
        {
            throw new IllegalArgumentException("series " + name + ": " + xs.length + " x values, " + ys.length + " y");
        }
        series.add(new Series(name, xs.clone(), ys.clone(), dashed));
        return this;
    }

    int seriesCount()
    {
        return series.size();
    }

    void write(final Path png) throws IOException
    {
        final BufferedImage image = new BufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_INT_RGB);
        final Graphics2D g = image.createGraphics();
        try
        {
            draw(g);
        }
        finally
        {
            g.dispose();
        }
        if (!ImageIO.write(image, "png", png.toFile()))
        {
            throw new IOException("no PNG writer available for " + png);
        }
    }

    private boolean usable(final double x, final double y)
    {
        return Double.isFinite(x) && Double.isFinite(y) && (!logX || x > 0) && (!logY || y > 0);
    }

    private void draw(final Graphics2D g)
    {
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, WIDTH, HEIGHT);
        double minX = Double.MAX_VALUE;
        double maxX = -Double.MAX_VALUE;
        double minY = Double.MAX_VALUE;
        double maxY = -Double.MAX_VALUE;
        for (final Series s : series)
        {
            for (int i = 0; i < s.xs.length; i++)
            {
                if (usable(s.xs[i], s.ys[i]))
                {
                    minX = Math.min(minX, s.xs[i]);
                    maxX = Math.max(maxX, s.xs[i]);
                    minY = Math.min(minY, s.ys[i]);
                    maxY = Math.max(maxY, s.ys[i]);
                }
            }
        }
        final int plotW = WIDTH - LEFT - RIGHT;
        final int plotH = HEIGHT - TOP - BOTTOM;
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 18));
        g.setColor(Color.BLACK);
        g.drawString(title, LEFT, 30);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
        if (minX > maxX)
        {
            g.drawString("no data", LEFT + plotW / 2 - 20, TOP + plotH / 2);
            return;
        }
        if (minX == maxX)
        {
            minX = logX ? minX / 2 : minX - 1;
            maxX = logX ? maxX * 2 : maxX + 1;
        }
        final double lowY;
        final double highY;
        if (logY)
        {
            lowY = Math.pow(10, Math.floor(Math.log10(minY)));
            highY = Math.pow(10, Math.ceil(Math.log10(maxY * 1.0001)));
        }
        else
        {
            lowY = 0;
            highY = niceCeiling(maxY * 1.05);
        }
        final Axis xAxis = new Axis(logX, minX, maxX, LEFT, LEFT + plotW);
        final Axis yAxis = new Axis(logY, lowY, highY, TOP + plotH, TOP);

        // Grid, ticks and labels.
        final FontMetrics metrics = g.getFontMetrics();
        final Stroke gridStroke = new BasicStroke(1f);
        g.setStroke(gridStroke);
        for (final double tick : xTicks(minX, maxX))
        {
            final int px = (int)Math.round(xAxis.map(tick));
            g.setColor(new Color(0xE6E6E6));
            g.drawLine(px, TOP, px, TOP + plotH);
            g.setColor(Color.DARK_GRAY);
            final String label = xTickLabel.apply(tick);
            g.drawString(label, px - metrics.stringWidth(label) / 2, TOP + plotH + 18);
        }
        for (final double tick : yTicks(lowY, highY))
        {
            final int py = (int)Math.round(yAxis.map(tick));
            g.setColor(new Color(0xE6E6E6));
            g.drawLine(LEFT, py, LEFT + plotW, py);
            g.setColor(Color.DARK_GRAY);
            final String label = formatNumber(tick);
            g.drawString(label, LEFT - 8 - metrics.stringWidth(label), py + 5);
        }
        g.setColor(Color.BLACK);
        g.drawRect(LEFT, TOP, plotW, plotH);
        g.drawString(xLabel, LEFT + plotW / 2 - metrics.stringWidth(xLabel) / 2, HEIGHT - 25);
        final Graphics2D rotated = (Graphics2D)g.create();
        rotated.rotate(-Math.PI / 2);
        rotated.drawString(yLabel, -(TOP + plotH / 2) - metrics.stringWidth(yLabel) / 2, 22);
        rotated.dispose();

        // Series and legend.
        int legendY = TOP + 10;
        for (int k = 0; k < series.size(); k++)
        {
            final Series s = series.get(k);
            final Color color = PALETTE[k % PALETTE.length];
            final Stroke stroke = s.dashed ?
                new BasicStroke(2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 1f, new float[] {8f, 5f}, 0f) :
                new BasicStroke(2.2f);
            g.setColor(color);
            g.setStroke(stroke);
            final Path2D path = new Path2D.Double();
            boolean started = false;
            for (int i = 0; i < s.xs.length; i++)
            {
                if (!usable(s.xs[i], s.ys[i]))
                {
                    continue;
                }
                final double px = xAxis.map(s.xs[i]);
                final double py = yAxis.map(s.ys[i]);
                if (started)
                {
                    path.lineTo(px, py);
                }
                else
                {
                    path.moveTo(px, py);
                    started = true;
                }
                g.fillOval((int)px - 3, (int)py - 3, 7, 7);
            }
            g.draw(path);
            g.drawLine(LEFT + plotW + 15, legendY, LEFT + plotW + 45, legendY);
            g.setStroke(gridStroke);
            g.setColor(Color.BLACK);
            g.drawString(s.name, LEFT + plotW + 52, legendY + 5);
            legendY += 20;
        }
    }

    private List<Double> xTicks(final double min, final double max)
    {
        final List<Double> ticks = new ArrayList<>();
        if (logX)
        {
            final int lo = (int)Math.floor(log2(min));
            final int hi = (int)Math.ceil(log2(max));
            final int step = Math.max(1, (hi - lo + 11) / 12);
            for (int e = lo; e <= hi; e += step)
            {
                final double tick = Math.pow(2, e);
                if (tick >= min * 0.999 && tick <= max * 1.001)
                {
                    ticks.add(tick);
                }
            }
        }
        else
        {
            final double step = niceCeiling((max - min) / 8);
            for (double t = Math.ceil(min / step) * step; t <= max; t += step)
            {
                ticks.add(t);
            }
        }
        return ticks;
    }

    private List<Double> yTicks(final double low, final double high)
    {
        final List<Double> ticks = new ArrayList<>();
        if (logY)
        {
            for (double t = low; t <= high * 1.0001; t *= 10)
            {
                ticks.add(t);
            }
        }
        else
        {
            final double step = high / 5;
            for (int i = 0; i <= 5; i++)
            {
                ticks.add(step * i);
            }
        }
        return ticks;
    }

    private static double log2(final double v)
    {
        return Math.log(v) / Math.log(2);
    }

    /**
     * @return the smallest 1, 2 or 5 times a power of ten at or above the value.
     */
    static double niceCeiling(final double value)
    {
        if (value <= 0)
        {
            return 1;
        }
        final double magnitude = Math.pow(10, Math.floor(Math.log10(value)));
        for (final double m : new double[] {1, 2, 5, 10})
        {
            if (m * magnitude >= value)
            {
                return m * magnitude;
            }
        }
        return 10 * magnitude;
    }

    static String formatNumber(final double v)
    {
        if (0 == v)
        {
            return "0";
        }
        final double abs = Math.abs(v);
        if (abs >= 1e6 || abs < 1e-3)
        {
            return String.format(Locale.ROOT, "%.0e", v);
        }
        if (abs >= 100 || v == Math.rint(v))
        {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        return String.format(Locale.ROOT, "%.3g", v);
    }

    /** Maps data values to pixels along one axis. */
    private static final class Axis
    {
        private final boolean log;
        private final double min;
        private final double max;
        private final double from;
        private final double to;

        Axis(final boolean log, final double min, final double max, final double from, final double to)
        {
            this.log = log;
            this.min = log ? Math.log(min) : min;
            this.max = log ? Math.log(max) : max;
            this.from = from;
            this.to = to;
        }

        double map(final double value)
        {
            final double v = log ? Math.log(value) : value;
            final double span = max - min;
            return from + (0 == span ? 0.5 : (v - min) / span) * (to - from);
        }
    }
}
