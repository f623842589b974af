/**
 * hintmap: a shared-memory store of per-region performance hints for GPU compilers and runtimes.
 *
 * <p>Only {@code dev.hintmap} is API. The layout ({@code dev.hintmap.format}), the concurrency
 * protocol ({@code dev.hintmap.store}) and the eviction policy ({@code dev.hintmap.eviction}) are
 * implementation; they follow {@code docs/FORMAT.md}.
 */
module dev.hintmap {
    exports dev.hintmap;
}
