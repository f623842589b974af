/* hm-replay: records a list of samples into a hint file, in order, through the C library:
 *
 *   hm-replay FILE SAMPLES_FILE CAPACITY
 *
 * SAMPLES_FILE has one "name kernel_ns bytes_touched" per line ('#' lines and blank lines are
 * skipped). The Java tests use it to check that C writes the golden file
 * (src/test/resources/vectors/golden.hints) byte for byte, CLOCK choices included. */
#include "hintmap.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: hm-replay FILE SAMPLES_FILE CAPACITY\n");
        return 2;
    }
    FILE *in = fopen(argv[2], "r");
    if (in == NULL) {
        perror("hm-replay: samples");
        return 1;
    }
    hm_options o;
    hm_options_init(&o);
    hm_options_set_capacity(&o, (uint32_t)strtoul(argv[3], NULL, 10));
    hm_store *s;
    char err[512];
    if (hm_open_ex(argv[1], &o, &s, err, sizeof err) < 0) {
        fprintf(stderr, "hm-replay: %s\n", err);
        fclose(in);
        return 1;
    }
    char line[2048];
    int rc = 0;
    while (fgets(line, sizeof line, in) != NULL) {
        if (line[0] == '#' || line[0] == '\n') continue;
        char name[1100];
        uint64_t ns, bytes;
        if (sscanf(line, "%1099s %" SCNu64 " %" SCNu64, name, &ns, &bytes) != 3) {
            fprintf(stderr, "hm-replay: bad line: %s", line);
            rc = 1;
            break;
        }
        int r = hm_record(s, name, strlen(name), ns, bytes);
        if (r < 0) {
            fprintf(stderr, "hm-replay: %s: %s\n", name, hm_last_error(s));
            rc = 1;
            break;
        }
    }
    fclose(in);
    hm_close(s);
    return rc;
}
