/*
 * An out-of-tree user of the installed hintmap C library (tests/install_check.sh builds it against
 * `make install DESTDIR=...` with pkg-config and with CMake, statically and shared): opens (creates)
 * the file given as argv[1], records one sample, looks it up, and prints
 *
 *   hintmap <hm_version()> header <HM_VERSION_STRING> count <n> total <ns>
 *
 * Exit status 0 when everything worked and the library's version is the header's.
 */
#include <hintmap.h>

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: hm-consumer FILE\n");
        return 64;
    }
    hm_options o;
    hm_options_init(&o);
    hm_options_set_capacity(&o, 64);
    hm_store *s;
    char err[512];
    int rc = hm_open_ex(argv[1], &o, &s, err, sizeof err);
    if (rc < 0) {
        fprintf(stderr, "hm-consumer: %s (%s)\n", err, hm_strerror(rc));
        return 1;
    }
    rc = hm_record(s, "consumer_gemm", 13, 1500, 4096);
    hm_region_record r;
    if (rc == HM_OK) rc = hm_lookup(s, "consumer_gemm", 13, &r);
    if (rc != HM_OK) {
        fprintf(stderr, "hm-consumer: %s: %s\n", hm_strerror(rc), hm_last_error(s));
        hm_close(s);
        return 1;
    }
    printf("hintmap %s header %s count %llu total %llu\n", hm_version(), HM_VERSION_STRING,
           (unsigned long long)r.dispatch_count, (unsigned long long)r.kernel_ns_total);
    if (hm_close(s) != HM_OK) return 1;
    return strcmp(hm_version(), HM_VERSION_STRING) == 0 ? 0 : 2;
}
