/*
 * replay_main.c - a plain main() for the libFuzzer target fuzz_hintmap.c, so that `make test`
 * replays the regression inputs (fuzz/regressions/) with gcc + ASan/UBSan (no clang).
 *
 *   fuzz_replay PATH...          run every file (a directory: every file in it, sorted)
 *   fuzz_replay --seeds DIR      write the seed inputs of the fuzzer into DIR
 *
 * Exit 0 when every input ran (a failed invariant aborts, a sanitizer report exits non-zero).
 */
#define _GNU_SOURCE 1
#include "hintmap.h"
#include "hintmap_format.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

unsigned char *hm_fuzz_read_file(const char *path, size_t *n); /* fuzz_hintmap.c */

static int run_file(const char *path) {
    size_t n;
    unsigned char *b = hm_fuzz_read_file(path, &n);
    if (b == NULL) {
        fprintf(stderr, "fuzz_replay: cannot read %s\n", path);
        return -1;
    }
    LLVMFuzzerTestOneInput(b, n);
    free(b);
    return 1;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int run_path(const char *path) {
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "fuzz_replay: %s: no such file or directory\n", path);
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) return run_file(path);
    DIR *d = opendir(path);
    if (d == NULL) return -1;
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, "README.md") == 0) continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            names = realloc(names, cap * sizeof *names);
        }
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    if (n > 1) qsort(names, n, sizeof *names, cmp_str);
    int count = 0;
    for (size_t i = 0; i < n; i++) {
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", path, names[i]);
        int r = run_file(p);
        if (r < 0) count = -1;
        else if (count >= 0) count += r;
        free(names[i]);
    }
    free(names);
    return count;
}

static int put(const char *dir, const char *name, const unsigned char *b, size_t n) {
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "wb");
    if (f == NULL || fwrite(b, 1, n, f) != n) {
        perror(p);
        if (f) fclose(f);
        return -1;
    }
    return fclose(f);
}

/* A raw input (mode 0xC0) of file f: written as DIR/NAME. */
static int put_raw(const char *dir, const char *name, const unsigned char *f, size_t len) {
    unsigned char *r = malloc(len + 1);
    if (r == NULL) return -1;
    r[0] = 0xC0;
    memcpy(r + 1, f, len);
    int rc = put(dir, name, r, len + 1);
    free(r);
    return rc;
}

/* Seeds: structured inputs over the geometries, one per patch kind, raw valid files (the build's
 * format version), and raw files damaged where format version 2 changed the layout: an index
 * entry whose dist is not its distance from home (§3.8), reference bytes of value 7 (§3.9). */
static int make_seeds(const char *dir) {
    mkdir(dir, 0700);
    static const unsigned char script[] = {0x07, 0x10, 0x03, 0x23, 0x08, 0x0b, 0x07, 0x46, 0x56, 0x09, 0x03, 'n', '1', '7'};
    unsigned char b[256];
    char name[64];
    int n = 0;
    for (unsigned ci = 0; ci < 10; ci += 3)
        for (unsigned mi = 0; mi < 10; mi += 4)
            for (unsigned pi = 0; pi < 4; pi++) {
                size_t k = 0;
                b[k++] = 0x01;
                b[k++] = (unsigned char)ci;
                b[k++] = (unsigned char)mi;
                b[k++] = (unsigned char)pi;
                b[k++] = 0; /* no patches */
                memcpy(b + k, script, sizeof script);
                k += sizeof script;
                snprintf(name, sizeof name, "seed-s-%u-%u-%u", ci, mi, pi);
                if (put(dir, name, b, k) != 0) return -1;
                n++;
            }
    for (unsigned region = 0; region < 10; region++) { /* 9: region 8 again, on struct_lock */
        size_t k = 0;
        b[k++] = 0x01;
        b[k++] = 4; /* capacity 4 */
        b[k++] = 7; /* max_name_bytes 64 */
        b[k++] = 3; /* full, with evictions */
        b[k++] = 1; /* one patch */
        b[k++] = (unsigned char)(region == 9 ? 8 : region);
        b[k++] = 0x28;
        b[k++] = 0x01;
        b[k++] = 0;
        b[k++] = region == 9 ? 4 : region >= 5 ? 5 : 7; /* length 8, or a selector (5: capacity + 1, slot 2) */
        if (region < 5)
            for (int i = 0; i < 8; i++) b[k++] = (unsigned char)(0xF0 + i);
        memcpy(b + k, script, sizeof script);
        k += sizeof script;
        snprintf(name, sizeof name, "seed-p-%u", region);
        if (put(dir, name, b, k) != 0) return -1;
        n++;
    }
    /* raw: whole valid files made by the library */
    char tmpl[] = "/tmp/hm-seeds-XXXXXX";
    if (mkdtemp(tmpl) == NULL) return -1;
    static const uint32_t caps[] = {0, 1, 4};
    for (unsigned i = 0; i < 3; i++) {
        char p[256];
        snprintf(p, sizeof p, "%s/raw.hm", tmpl);
        hm_options o;
        hm_options_init(&o);
        hm_options_set_capacity(&o, caps[i]);
        hm_store *s;
        if (hm_open(p, &o, &s) != HM_OK) return -1;
        hm_record(s, "n0", 2, 1000, 1);
        hm_record(s, "n1", 2, 2000, 2);
        hm_record(s, "n0", 2, 3000, 3);
        hm_close(s);
        size_t len;
        unsigned char *f = hm_fuzz_read_file(p, &len);
        unlink(p);
        if (f == NULL) return -1;
        snprintf(name, sizeof name, "seed-raw-cap%u", caps[i]);
        int rc = put_raw(dir, name, f, len);
        if (rc == 0 && caps[i] == 4 && len >= sizeof(hm_file_header)) {
            hm_file_header h;
            memcpy(&h, f, sizeof h);
            unsigned char *d = malloc(len);
            if (d == NULL) rc = -1;
            if (rc == 0) { /* every used index entry's dist one more than its distance from home */
                memcpy(d, f, len);
                for (uint32_t j = 0; j < h.index_entries && h.index_offset + 8u * (j + 1) <= len; j++) {
                    uint64_t e;
                    memcpy(&e, d + h.index_offset + 8u * j, 8);
                    if (e != 0) e = hm_index_with_dist(e, hm_index_dist(e) + 1);
                    memcpy(d + h.index_offset + 8u * j, &e, 8);
                }
                rc = put_raw(dir, "seed-raw-dist", d, len);
                n += rc == 0;
            }
            if (rc == 0 && h.ref_table_offset + h.capacity <= len) { /* every reference byte 7 */
                memcpy(d, f, len);
                memset(d + h.ref_table_offset, 7, h.capacity);
                rc = put_raw(dir, "seed-raw-ref7", d, len);
                n += rc == 0;
            }
            free(d);
        }
        free(f);
        if (rc != 0) return -1;
        n++;
    }
    rmdir(tmpl);
    printf("fuzz_replay: wrote %d seeds to %s\n", n, dir);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "--seeds") == 0) return make_seeds(argv[2]) == 0 ? 0 : 1;
    if (argc < 2) {
        fprintf(stderr, "usage: fuzz_replay PATH... | fuzz_replay --seeds DIR\n");
        return 2;
    }
    int total = 0, bad = 0;
    for (int i = 1; i < argc; i++) {
        int r = run_path(argv[i]);
        if (r < 0) bad = 1;
        else total += r;
    }
    printf("fuzz_replay: %d inputs replayed without a finding\n", total);
    return bad;
}
