package dev.hintmap.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * The chart of the PGO loop live (docs/PGO.md, "The loop live"; {@code docs/pgo-live.png}): the FFTW runtime's
 * throughput per second against time, with the workload's shift, the optimizer's plans and wisdom, and the
 * runtime's pick-ups of new wisdom marked. Reads the logs {@code src/examples/fftw/pgo-live.sh} writes, whose
 * lines start with Unix time in seconds ({@code EPOCH rate ... mflops=X ...}, {@code EPOCH event KIND ...}).
 * Uses the project's chart library (JFreeChart, as {@link ReportChart}); the script compiles this one class.
 *
 * <pre>java -cp jfreechart.jar:classes dev.hintmap.bench.PgoLiveChart RUNTIME_LOG OPTIMIZER_LOG OUT.png [TITLE]</pre>
 */
public final class PgoLiveChart {
    private PgoLiveChart() {}

    /** One line of a log: its time and its words after the time. */
    private record Line(double epoch, String[] words) {
        String value(String key) {
            for (String w : words) {
                if (w.startsWith(key + "=")) {
                    return w.substring(key.length() + 1);
                }
            }
            return "";
        }
    }

    private static List<Line> read(Path log) throws IOException {
        List<Line> lines = new ArrayList<>();
        for (String text : Files.readAllLines(log, StandardCharsets.UTF_8)) {
            String[] words = text.trim().split(" +");
            if (words.length >= 2) {
                try {
                    String[] rest = new String[words.length - 1];
                    System.arraycopy(words, 1, rest, 0, rest.length);
                    lines.add(new Line(Double.parseDouble(words[0]), rest));
                } catch (NumberFormatException notALogLine) {
                    // a line of another program (a JVM warning): not part of the chart
                }
            }
        }
        return lines;
    }

    /**
     * Draws the chart.
     *
     * @param args the runtime's log, the optimizer's log, the PNG to write, and a title
     * @throws IOException if a log cannot be read or the PNG written
     */
    public static void main(String[] args) throws IOException {
        if (args.length < 3) {
            System.err.println("usage: PgoLiveChart RUNTIME_LOG OPTIMIZER_LOG OUT.png [TITLE]");
            System.exit(2);
        }
        List<Line> runtime = read(Path.of(args[0]));
        List<Line> optimizer = read(Path.of(args[1]));
        double t0 = runtime.stream().filter(l -> l.words()[0].equals("event") && l.words()[1].equals("start"))
                .mapToDouble(Line::epoch).findFirst().orElse(runtime.isEmpty() ? 0 : runtime.getFirst().epoch());
        XYSeries rate = new XYSeries("FFT throughput (MFLOP/s, 5 N log2 N per complex transform)");
        List<ValueMarker> markers = new ArrayList<>();
        for (Line l : runtime) {
            double t = l.epoch() - t0;
            if (l.words()[0].equals("rate")) {
                rate.add(t, Double.parseDouble(l.value("mflops")));
            } else if (l.words()[0].equals("event") && l.words()[1].equals("shift")) {
                markers.add(marker(t, "mix → " + l.value("mix"), new Color(0xd62728), 2.5f, 0.97));
            } else if (l.words()[0].equals("event") && l.words()[1].equals("pickup")) {
                markers.add(marker(t, "pick-up " + l.value("from_wisdom"), new Color(0x2ca02c), 1.5f, 0.55));
            }
        }
        for (Line l : optimizer) {
            double t = l.epoch() - t0;
            if (l.words()[0].equals("event") && l.words()[1].equals("plan") && !l.value("new").isEmpty()) {
                markers.add(marker(t, "plan " + l.value("new"), new Color(0x7f7f7f), 1f, 0.85));
            } else if (l.words()[0].equals("event") && l.words()[1].equals("wisdom")) {
                markers.add(marker(t, "wisdom " + l.value("gen"), new Color(0x1f77b4), 1f, 0.70));
            }
        }
        NumberAxis x = new NumberAxis("seconds since the runtime started");
        NumberAxis y = new NumberAxis("MFLOP/s (per second of the run)");
        y.setAutoRangeIncludesZero(true);
        XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, false);
        renderer.setSeriesPaint(0, Color.BLACK);
        renderer.setSeriesStroke(0, new BasicStroke(1.5f));
        XYPlot plot = new XYPlot(new XYSeriesCollection(rate), x, y, renderer);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        for (ValueMarker m : markers) {
            plot.addDomainMarker(m);
        }
        String title = args.length > 3 ? args[3] : "The PGO loop live: FFTW, hint file, optimizer";
        JFreeChart chart = new JFreeChart(title, JFreeChart.DEFAULT_TITLE_FONT, plot, true);
        chart.setBackgroundPaint(Color.WHITE);
        ChartUtils.saveChartAsPNG(Path.of(args[2]).toFile(), chart, 1000, 560);
    }

    /** A vertical line at t with its label near the top (at {@code height} of the plot, so labels do not overlap). */
    private static ValueMarker marker(double t, String label, Color color, float width, double height) {
        ValueMarker m = new ValueMarker(t, color, new BasicStroke(width, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f,
                new float[] {4f, 3f}, 0f));
        m.setLabel(label);
        m.setLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 10));
        m.setLabelPaint(color);
        m.setLabelBackgroundColor(new Color(255, 255, 255, 200));
        if (height > 0.95) { // the shift: its label left of its line, clear of the plans that follow it
            m.setLabelAnchor(RectangleAnchor.TOP_LEFT);
            m.setLabelTextAnchor(TextAnchor.TOP_RIGHT);
        } else if (height > 0.8) {
            m.setLabelAnchor(RectangleAnchor.TOP_RIGHT);
            m.setLabelTextAnchor(TextAnchor.TOP_LEFT);
        } else if (height > 0.6) {
            m.setLabelAnchor(RectangleAnchor.RIGHT);
            m.setLabelTextAnchor(TextAnchor.CENTER_LEFT);
        } else {
            m.setLabelAnchor(RectangleAnchor.BOTTOM_RIGHT);
            m.setLabelTextAnchor(TextAnchor.BOTTOM_LEFT);
        }
        return m;
    }
}
