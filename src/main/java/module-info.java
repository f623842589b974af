/**
 * hintmap: a shared-memory store of per-region performance hints for GPU compilers and runtimes.
 *
 * <p>Only {@code dev.hintmap} is API. The layout ({@code dev.hintmap.format}), the concurrency
 * protocol ({@code dev.hintmap.store}), the eviction policy ({@code dev.hintmap.eviction}) and the
 * system calls beneath them ({@code dev.hintmap.os}) are implementation; they follow
 * {@code docs/FORMAT.md}. The library requires nothing beyond
 * {@code java.base}. The {@code hintmap} command line tool ({@code dev.hintmap.cli}) is compiled with
 * these sources but ships apart, in its own jar and the distribution (docs/DESIGN.md §1): it is not
 * part of this module's jar, and it reaches its libraries from the class path.
 */
module dev.hintmap {
    exports dev.hintmap;
}
