package dev.hintmap.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.util.List;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/** The capacity chart ({@code bench-results/perf-capacity.png}): churn's ns per record against capacity, one line per store. */
final class ReportChart {
    private ReportChart() {}

    static void write(List<ReportResults.Score> scores, Path png) throws IOException {
        XYSeriesCollection data = new XYSeriesCollection();
        for (String store : ReportTables.QUERY_STORES) {
            XYSeries series = new XYSeries(store);
            for (int c : ReportPlan.CHURN_CAPACITIES) {
                double v = ReportResults.med(scores, "ChurnBench.churn", store, c);
                if (!Double.isNaN(v)) {
                    series.add(c, v);
                }
            }
            if (!series.isEmpty()) {
                data.addSeries(series);
            }
        }
        LogAxis x = new LogAxis("capacity (regions; 4 × as many distinct regions recorded)");
        x.setBase(2);
        x.setSmallestValue(128);
        x.setTickUnit(new NumberTickUnit(2));
        x.setNumberFormatOverride(new DecimalFormat("#,##0"));
        LogAxis y = new LogAxis("ns per record (median, 1 thread)");
        y.setBase(10);
        y.setSmallestValue(1);
        y.setTickUnit(new NumberTickUnit(1));
        y.setNumberFormatOverride(new DecimalFormat("#,##0"));
        XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
        Color[] colors = {new Color(0xd62728), new Color(0x7f7f7f), new Color(0x1f77b4), new Color(0x2ca02c), new Color(0x9467bd)};
        for (int i = 0; i < data.getSeriesCount(); i++) {
            renderer.setSeriesPaint(i, colors[i % colors.length]);
            renderer.setSeriesStroke(i, new BasicStroke(2f));
        }
        XYPlot plot = new XYPlot(data, x, y, renderer);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        JFreeChart chart = new JFreeChart("Record with eviction churn: cost versus capacity", JFreeChart.DEFAULT_TITLE_FONT, plot, true);
        chart.setBackgroundPaint(Color.WHITE);
        ChartUtils.saveChartAsPNG(png.toFile(), chart, 900, 560);
    }
}
