package org.roce4j.cli.incast;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * The PNG charts of {@code roce incast --plot DIR}, drawn with JFreeChart (headless): each flow's throughput at the
 * bottleneck over time, each flow's DCQCN current rate over time, and the bottleneck queue over time with Kmin, Kmax
 * and the buffer marked.
 *
 * <p>Why JFreeChart: a single jar with no dependencies of its own (XChart pulls in three for its vector formats),
 * maintained since 2000 and still released (1.5.6), and it draws straight into a PNG without a display.
 */
public final class IncastPlots
{
    /** Width of every chart, pixels. */
    static final int WIDTH = 1000;
    /** Height of every chart, pixels. */
    static final int HEIGHT = 560;

    private IncastPlots()
    {
    }

    /**
     * Write the charts.
     *
     * @param result what to draw.
     * @param dir    where: {@code throughput.png}, {@code rate.png}, {@code queue.png} (created if missing).
     * @param title  first line of every title (the run's description).
     * @return the files written.
     * @throws IOException when a file cannot be written.
     */
    public static List<Path> write(final IncastResult result, final Path dir, final String title) throws IOException
    {
        System.setProperty("java.awt.headless", "true");
        Files.createDirectories(dir);
        final double binMs = result.binNs() / 1e6;
        final XYSeriesCollection throughput = new XYSeriesCollection();
        final XYSeriesCollection rate = new XYSeriesCollection();
        for (final IncastResult.FlowResult f : result.flows())
        {
            final XYSeries t = new XYSeries("flow " + f.flow() + " (" + f.sender() + ")");
            final XYSeries r = new XYSeries("flow " + f.flow());
            for (int b = 0; b < f.throughputGbps().length; b++)
            {
                final double midMs = (b + 0.5) * binMs;
                t.add(midMs, f.throughputGbps()[b]);
                if (midMs >= f.startMs() && midMs <= f.endMs())
                {
                    r.add((b + 1) * binMs, f.rateGbps()[b]);
                }
            }
            throughput.addSeries(t);
            rate.addSeries(r);
        }
        final Path throughputPng = dir.resolve("throughput.png");
        save(lines(title + ": throughput of each flow at the bottleneck", "time (ms)", "Gb/s (per " +
            String.format(java.util.Locale.ROOT, "%.2f", binMs) + " ms)", throughput), throughputPng);
        final Path ratePng = dir.resolve("rate.png");
        save(lines(title + ": DCQCN current rate of each sender QP", "time (ms)", "Gb/s", rate), ratePng);

        final XYSeries queue = new XYSeries("queue");
        final int[] samples = result.queueSamples();
        final double sampleMs = result.queueSampleNs() / 1e6;
        for (int i = 0; i < samples.length; i++)
        {
            queue.add(i * sampleMs, samples[i] / 1000.0);
        }
        final JFreeChart queueChart = lines(title + ": queue at the receiver's switch port", "time (ms)", "KB",
            new XYSeriesCollection(queue));
        final XYPlot plot = queueChart.getXYPlot();
        marker(plot, result.kminBytes() / 1000.0, "Kmin", new Color(0x2ca02c));
        marker(plot, result.kmaxBytes() / 1000.0, "Kmax", new Color(0xff7f0e));
        marker(plot, result.bufferBytes() / 1000.0, "buffer", new Color(0xd62728));
        plot.getRangeAxis().setUpperBound(Math.max(plot.getRangeAxis().getUpperBound(),
            result.bufferBytes() / 1000.0 * 1.05));
        final Path queuePng = dir.resolve("queue.png");
        save(queueChart, queuePng);
        return List.of(throughputPng, ratePng, queuePng);
    }

    private static JFreeChart lines(final String title, final String x, final String y,
        final XYSeriesCollection data)
    {
        final JFreeChart chart = ChartFactory.createXYLineChart(title, x, y, data, PlotOrientation.VERTICAL, true,
            false, false);
        chart.setBackgroundPaint(Color.WHITE);
        final XYPlot plot = chart.getXYPlot();
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        final XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, false);
        for (int i = 0; i < data.getSeriesCount(); i++)
        {
            renderer.setSeriesStroke(i, new BasicStroke(1.4f));
        }
        plot.setRenderer(renderer);
        return chart;
    }

    private static void marker(final XYPlot plot, final double value, final String label, final Color color)
    {
        final ValueMarker marker = new ValueMarker(value, color, new BasicStroke(1.2f, BasicStroke.CAP_BUTT,
            BasicStroke.JOIN_MITER, 10f, new float[] {6f, 4f}, 0f));
        marker.setLabel(label);
        marker.setLabelPaint(color);
        // Inside the plot at its right edge, above the line (the default centres the label on the axis, cut off).
        marker.setLabelAnchor(RectangleAnchor.TOP_RIGHT);
        marker.setLabelTextAnchor(TextAnchor.BOTTOM_RIGHT);
        plot.addRangeMarker(marker);
    }

    private static void save(final JFreeChart chart, final Path file) throws IOException
    {
        ChartUtils.saveChartAsPNG(file.toFile(), chart, WIDTH, HEIGHT);
    }
}
