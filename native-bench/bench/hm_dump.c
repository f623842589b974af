/* hm-dump: prints every region of a hint file through the C library's read path
 * (hm_region_at, the §7.2.1 consistent read), one stable line per region:
 *
 *   region <name> <dispatch_count> <kernel_ns_total> <kernel_ns_max> <bytes_total>
 *   size <live regions> capacity <capacity>
 *
 * With names given after the file, it looks each up with hm_lookup instead and prints
 * "absent <name>" for a region the file does not hold. Opens the file read-only and runs
 * hm_check() first (a file truncated, resized or replaced since it was mapped is an error).
 * A name is printed whole, NUL bytes included, with control characters escaped as the Java
 * CLI's tables escape them (hm_name_print.h). */
#include "hintmap.h"
#include "hm_name_print.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static void print_record(const char *name, size_t len, const hm_region_record *r) {
    fputs("region ", stdout);
    hm_name_print(stdout, name, len);
    printf(" %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", r->dispatch_count, r->kernel_ns_total,
           r->kernel_ns_max, r->bytes_total);
}

int main(int argc, char **argv) {
    if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        fprintf(stderr, "usage: hm-dump FILE [NAME...]\n");
        return 2;
    }
    hm_options o;
    hm_options_init(&o);
    o.read_only = 1;
    hm_store *s;
    char err[512];
    int rc = hm_open_ex(argv[1], &o, &s, err, sizeof err);
    if (rc < 0) {
        fprintf(stderr, "hm-dump: %s\n", err);
        return 1;
    }
    rc = hm_check(s); /* bulk work: make sure the file is still the one mapped (FORMAT §5.1) */
    if (rc < 0) {
        fprintf(stderr, "hm-dump: %s\n", hm_last_error(s));
        hm_close(s);
        return 1;
    }
    hm_region_record r;
    if (argc > 2) {
        for (int i = 2; i < argc; i++) {
            rc = hm_lookup(s, argv[i], strlen(argv[i]), &r);
            if (rc == HM_OK) {
                print_record(argv[i], strlen(argv[i]), &r);
            } else if (rc == HM_ENOTFOUND) {
                fputs("absent ", stdout);
                hm_name_print(stdout, argv[i], strlen(argv[i]));
                fputc('\n', stdout);
            } else {
                fprintf(stderr, "hm-dump: %s: %s\n", argv[i], hm_strerror(rc));
                hm_close(s);
                return 1;
            }
        }
    } else {
        char name[1025];
        uint32_t slots = hm_high_water(s);
        for (uint32_t k = 0; k < slots; k++) {
            size_t len;
            rc = hm_region_at(s, k, name, sizeof name, &len, &r);
            if (rc == HM_OK) {
                print_record(name, len, &r);
            } else if (rc != HM_ENOTFOUND) {
                fprintf(stderr, "hm-dump: slot %" PRIu32 ": %s\n", k, hm_strerror(rc));
                hm_close(s);
                return 1;
            }
        }
    }
    uint64_t size = 0;
    hm_size(s, &size);
    printf("size %" PRIu64 " capacity %" PRIu32 "\n", size, hm_capacity(s));
    hm_close(s);
    return 0;
}
