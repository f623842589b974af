/* hm-crash-writer: a writer meant to be killed (kill -9) at any instruction by the torture
 * tests. It records samples round-robin into regions region-00000 .. region-<R-1> of a hint
 * file and, after each hm_record returns, counts the sample in its own progress file with a
 * release store. After a kill the progress file therefore says how many samples of each
 * region completed, short by at most the one sample that was in flight:
 *
 *   file count of region r  ==  sum over writers of progress[r]  (+ at most 1 per killed writer)
 *
 * Progress file: R little-endian u64 counters (created/extended by this program, zero-filled).
 * Each sample is kernel_ns = 1000 + r, bytes = r, so totals are checkable from counts.
 *
 *   hm-crash-writer FILE PROGRESS_FILE REGIONS [RECORDS] [--handles]
 *
 * Without RECORDS (or 0) it runs until killed. Exit 0 after RECORDS samples, 1 on error. */
#define _GNU_SOURCE 1
#include "hintmap.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: hm-crash-writer FILE PROGRESS_FILE REGIONS [RECORDS] [--handles]\n");
        return 2;
    }
    uint32_t regions = (uint32_t)strtoul(argv[3], NULL, 10);
    uint64_t records = argc > 4 && argv[4][0] != '-' ? strtoull(argv[4], NULL, 10) : 0;
    int handles = argc > 4 && strcmp(argv[argc - 1], "--handles") == 0;
    if (regions == 0 || regions > 100000) {
        fprintf(stderr, "hm-crash-writer: REGIONS must be in [1, 100000]\n");
        return 2;
    }
    int fd = open(argv[2], O_RDWR | O_CREAT, 0600);
    if (fd < 0 || ftruncate(fd, (off_t)(regions * sizeof(uint64_t))) != 0) {
        perror("hm-crash-writer: progress file");
        return 1;
    }
    _Atomic uint64_t *progress = mmap(NULL, regions * sizeof(uint64_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (progress == MAP_FAILED) {
        perror("hm-crash-writer: mmap progress");
        return 1;
    }
    close(fd);

    hm_options o;
    hm_options_init(&o);
    hm_store *s;
    char err[512];
    if (hm_open_ex(argv[1], &o, &s, err, sizeof err) < 0) {
        fprintf(stderr, "hm-crash-writer: %s\n", err);
        munmap(progress, regions * sizeof(uint64_t));
        return 1;
    }
    /* Everything below is released on every exit, so that a run under LeakSanitizer reports the library. */
    int status = 1;
    char (*names)[16] = calloc(regions, sizeof *names);
    hm_region **h = calloc(regions, sizeof *h);
    if (!names || !h) {
        fprintf(stderr, "hm-crash-writer: out of memory\n");
        goto out;
    }
    for (uint32_t r = 0; r < regions; r++) {
        snprintf(names[r], sizeof names[r], "region-%05u", r);
        if (handles && hm_region_resolve(s, names[r], strlen(names[r]), &h[r]) < 0) {
            fprintf(stderr, "hm-crash-writer: resolve: %s\n", hm_last_error(s));
            goto out;
        }
    }
    printf("ready\n");
    fflush(stdout);
    for (uint64_t i = 0; records == 0 || i < records; i++) {
        uint32_t r = (uint32_t)(i % regions);
        int rc = handles ? hm_region_add(h[r], 1000 + r, r) : hm_record(s, names[r], strlen(names[r]), 1000 + r, r);
        if (rc != HM_OK) {
            fprintf(stderr, "hm-crash-writer: record %s: %s\n", names[r], hm_strerror(rc));
            goto out;
        }
        /* release: the record above is complete in the file before the progress says so */
        atomic_store_explicit(&progress[r], atomic_load_explicit(&progress[r], memory_order_relaxed) + 1,
                              memory_order_release);
    }
    status = 0;
out:
    if (h) {
        for (uint32_t r = 0; r < regions; r++) hm_region_free(h[r]); /* NULL for a handle never resolved */
    }
    free(h);
    free(names);
    hm_close(s);
    munmap(progress, regions * sizeof(uint64_t));
    return status;
}
