/**
 * The store's protocol (FORMAT.md §5–§7): opening and mapping a hint file, the engine that records
 * and reads regions, the hash index, slots and their seqlock records, the owner locks and their
 * recovery, the writer table; the verifier of every invariant and the reader of files of earlier
 * versions. Builds on {@code format} and {@code os}; knows nothing of the command line tool.
 */
package dev.hintmap.store;
