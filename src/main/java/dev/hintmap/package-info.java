/**
 * The library's API, the one package the module exports: {@link dev.hintmap.HintStore} records
 * per-region performance hints into a shared-memory hint file and answers queries on them;
 * {@link dev.hintmap.HintFiles} checks and creates hint files as files.
 */
package dev.hintmap;
