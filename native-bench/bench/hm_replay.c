/* hm-replay: records a list of samples into a hint file, in order, through the C library:
 *
 *   hm-replay FILE SAMPLES_FILE CAPACITY [MAX_NAME_BYTES]
 *
 * SAMPLES_FILE has one "name kernel_ns bytes_touched" per line ('#' lines and blank lines are
 * skipped); the name is everything before the last two fields, spaces included. The Java tests use it to check that C writes the golden file
 * (src/test/resources/vectors/golden.hints) byte for byte, CLOCK choices included. */
#include "hintmap.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc != 4 && argc != 5) {
        fprintf(stderr, "usage: hm-replay FILE SAMPLES_FILE CAPACITY [MAX_NAME_BYTES]\n");
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
    if (argc == 5) hm_options_set_max_name_bytes(&o, (uint32_t)strtoul(argv[4], NULL, 10));
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
        size_t len = strcspn(line, "\n");
        line[len] = '\0';
        char *bytes_at = strrchr(line, ' '), *ns_at = NULL;
        if (bytes_at != NULL) {
            *bytes_at = '\0';
            ns_at = strrchr(line, ' ');
        }
        uint64_t ns, bytes;
        char *end1, *end2;
        if (ns_at == NULL || ns_at == line) {
            fprintf(stderr, "hm-replay: bad line: %s\n", line);
            rc = 1;
            break;
        }
        *ns_at = '\0';
        ns = strtoull(ns_at + 1, &end1, 10);
        bytes = strtoull(bytes_at + 1, &end2, 10);
        if (*end1 != '\0' || *end2 != '\0' || end1 == ns_at + 1 || end2 == bytes_at + 1) {
            fprintf(stderr, "hm-replay: bad numbers on the line of %s\n", line);
            rc = 1;
            break;
        }
        const char *name = line;
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
