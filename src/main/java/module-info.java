/**
 * hintmap: a shared-memory store of per-region performance hints for GPU compilers and runtimes.
 *
 * <p>Only {@code dev.hintmap} is API. The layout ({@code dev.hintmap.format}), the concurrency
 * protocol ({@code dev.hintmap.store}) and the eviction policy ({@code dev.hintmap.eviction}) are
 * implementation; they follow {@code docs/FORMAT.md}. {@code dev.hintmap.cli} is the {@code hintmap}
 * command line tool: its libraries are {@code requires static} (optional Maven dependencies), so a
 * user of the library needs none of them; the tool runs from the class path ({@code ./hintmap},
 * docs/DESIGN.md).
 */
@SuppressWarnings("requires-automatic") // the Prometheus text format writer is an automatic module
module dev.hintmap {
    exports dev.hintmap;

    requires static info.picocli;
    requires static com.fasterxml.jackson.databind;
    requires static com.fasterxml.jackson.dataformat.csv;
    requires static org.jline.terminal;
    requires static io.prometheus.metrics.model;
    requires static io.prometheus.writer.text;
    requires static io.prometheus.metrics.config;
}
