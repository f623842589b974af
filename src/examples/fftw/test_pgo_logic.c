/*
 * test_pgo_logic.c - the FFTW runtime's logic without FFTW: spec parsing against the vectors shared with the
 * Java optimizer (src/test/resources/vectors/fftw-specs.txt), the workload file's format and every error it
 * names, and the built-in mixes. Run by `make test` (part of ./mvnw verify).
 *
 *   test_pgo_logic VECTORS_DIR
 */
#define _POSIX_C_SOURCE 200809L

#include "pgo_workload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures, checks;

#define CHECK(cond, ...)                                                                                     \
    do {                                                                                                     \
        checks++;                                                                                            \
        if (!(cond)) {                                                                                       \
            failures++;                                                                                      \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                             \
            fprintf(stderr, __VA_ARGS__);                                                                    \
            fputc('\n', stderr);                                                                             \
        }                                                                                                    \
    } while (0)

static void specs_agree_with_the_shared_vectors(const char *dir) {
    char path[1024], line[512];
    snprintf(path, sizeof path, "%s/fftw-specs.txt", dir);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL, "cannot read %s", path);
    if (f == NULL) return;
    int cases = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0] == '#' || line[0] == '\0') continue;
        char *tab = strchr(line, '\t');
        CHECK(tab != NULL, "vector without a tab: %s", line);
        if (tab == NULL) continue;
        *tab = '\0';
        const char *spec_text = line, *want = tab + 1;
        pgo_spec s;
        char why[256], bound[256];
        int rc = pgo_spec_parse(spec_text, &s, why, sizeof why);
        if (strncmp(want, "ok ", 3) == 0) {
            CHECK(rc == 0, "%s: refused (%s)", spec_text, why);
            CHECK(rc != 0 || pgo_spec_check_bound(&s, bound, sizeof bound) == 0, "%s: past the bound", spec_text);
            CHECK(rc != 0 || pgo_spec_points(&s) == strtoull(want + 3, NULL, 10), "%s: %llu points, want %s", spec_text,
                  (unsigned long long)pgo_spec_points(&s), want + 3);
            CHECK(rc != 0 || strcmp(s.text, spec_text) == 0, "%s: text %s", spec_text, s.text);
        } else if (strncmp(want, "bound ", 6) == 0) {
            CHECK(rc == 0, "%s: refused (%s)", spec_text, why);
            int b = rc == 0 ? pgo_spec_check_bound(&s, bound, sizeof bound) : 0;
            CHECK(rc != 0 || (b != 0 && strcmp(bound, want + 6) == 0), "%s: bound says '%s', want '%s'", spec_text,
                  b ? bound : "(within)", want + 6);
        } else {
            CHECK(strncmp(want, "refused ", 8) == 0, "bad vector %s", want);
            CHECK(rc != 0 && strcmp(why, want + 8) == 0, "%s: says '%s', want '%s'", spec_text, rc ? why : "(parsed)",
                  want + 8);
        }
        cases++;
    }
    fclose(f);
    CHECK(cases >= 25, "only %d vectors", cases);
    printf("spec vectors: %d\n", cases);
}

static void a_spec_records_its_parts(void) {
    pgo_spec s;
    char why[200];
    CHECK(pgo_spec_parse("rib1024x768", &s, why, sizeof why) == 0, "%s", why);
    CHECK(s.type == 'r' && s.in_place && !s.forward && s.rank == 2 && s.dims[0] == 1024 && s.dims[1] == 768, "parts");
    CHECK(pgo_spec_in_floats(&s) == 1024u * 2 * 385 && pgo_spec_out_floats(&s) == 0, "in-place c2r: padded rows");
    CHECK(pgo_spec_parse("rof1024x768", &s, why, sizeof why) == 0, "%s", why);
    CHECK(pgo_spec_in_floats(&s) == 1024u * 768 && pgo_spec_out_floats(&s) == 1024u * 2 * 385, "r2c: n real in, n/2+1 complex out");
    CHECK(pgo_spec_parse("ko64e10x32o00", &s, why, sizeof why) == 0 && s.kinds[0] == PGO_KIND_REDFT10 &&
              s.kinds[1] == PGO_KIND_RODFT00, "kinds");
    CHECK(pgo_spec_parse("cof1024", &s, why, sizeof why) == 0 && pgo_spec_flops(&s) == 5.0 * 1024 * 10, "5 N log2 N");
    CHECK(pgo_spec_parse("cof\033[2J", &s, why, sizeof why) != 0 && strcmp(why, "'\\x1b[2J' does not start with a size") == 0,
          "a control character is shown escaped, not sent to the terminal: %s", why);
}

/* Parses text as a workload file: the return code, err holding the message. */
static int read_text(const char *text, pgo_workload *w, char *err, size_t len) {
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    int rc = pgo_workload_read(f, "w.txt", w, err, len);
    fclose(f);
    return rc;
}

static void a_workload_file_lists_transforms_and_calls(void) {
    static pgo_workload w;
    char err[512];
    int rc = read_text("# a user's workload\n\ncof256x256 40\n  rof1024x768\t4   # a comment\r\n#\nki64e00 1\n", &w, err,
                       sizeof err);
    CHECK(rc == 0, "%s", err);
    CHECK(w.count == 3 && w.entries[0].calls == 40 && w.entries[1].calls == 4 && w.entries[2].calls == 1, "entries");
    CHECK(strcmp(w.entries[1].spec.text, "rof1024x768") == 0, "spec text");
    CHECK(strcmp(w.name, "w.txt") == 0, "named after the file");
}

static void every_bad_line_is_named_with_its_reason(void) {
    static const struct {
        const char *text, *err;
    } cases[] = {
        {"cof256x256 40\ncof0256 3\n", "w.txt:2: 'cof0256' is not a transform: a size is zero or has a leading zero: '0256'"},
        {"cof256 4\nzof1 2\n", "w.txt:2: 'zof1' is not a transform: type 'z' is not c (complex), r (real) or k (real-to-real)"},
        {"cof16777217 1\n", "w.txt:1: cof16777217: over the bound: 16777217 points exceed 2^24"},
        {"cof256\n", "w.txt:1: cof256: no count of calls per pass (SPEC CALLS)"},
        {"cof256 # forty\n", "w.txt:1: cof256: no count of calls per pass (SPEC CALLS)"},
        {"cof256 0\n", "w.txt:1: cof256: calls '0' is not an integer from 1 to 1000000"},
        {"cof256 -3\n", "w.txt:1: cof256: calls '-3' is not an integer from 1 to 1000000"},
        {"cof256 1000001\n", "w.txt:1: cof256: calls '1000001' is not an integer from 1 to 1000000"},
        {"cof256 4x\n", "w.txt:1: cof256: calls '4x' is not an integer from 1 to 1000000"},
        {"cof256 +4\n", "w.txt:1: cof256: calls '+4' is not an integer from 1 to 1000000"},
        {"cof256 99999999999999999999\n", "w.txt:1: cof256: calls '99999999999999999999' is not an integer from 1 to 1000000"},
        {"cof256 4 8\n", "w.txt:1: cof256: unexpected '8' after the count (SPEC CALLS, '#' for comments)"},
        {"cof256 4\n\ncof256 8\n", "w.txt:3: cof256 is listed twice (first on line 1)"},
        {"# nothing\n\n", "w.txt: no transform (lines of SPEC CALLS)"},
        {"", "w.txt: no transform (lines of SPEC CALLS)"},
        {"cof256 4\x1b[2J\n", "w.txt:1: cof256: calls '4\\x1b[2J' is not an integer from 1 to 1000000"},
    };
    static pgo_workload w;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char err[512] = "";
        int rc = read_text(cases[i].text, &w, err, sizeof err);
        CHECK(rc != 0 && strcmp(err, cases[i].err) == 0, "case %zu: got '%s', want '%s'", i, rc ? err : "(read)", cases[i].err);
    }
    char longline[400];
    memset(longline, ' ', sizeof longline);
    memcpy(longline, "cof256 4", 8);
    longline[sizeof longline - 2] = '\n';
    longline[sizeof longline - 1] = '\0';
    char err[512];
    CHECK(read_text(longline, &w, err, sizeof err) != 0 && strcmp(err, "w.txt:1: longer than 255 bytes") == 0, "%s", err);
    static char many[300 * 16];
    size_t at = 0;
    for (int i = 1; i <= PGO_WORKLOAD_MAX + 1; i++) at += (size_t)snprintf(many + at, sizeof many - at, "cof%d 1\n", i);
    CHECK(read_text(many, &w, err, sizeof err) != 0 && strcmp(err, "w.txt:257: more than 256 transforms") == 0, "%s", err);
}

static void the_built_in_mixes_parse_and_their_hot_transforms_differ(void) {
    static pgo_workload a, b;
    CHECK(pgo_workload_builtin("spectral", &a) == 0 && pgo_workload_builtin("imaging", &b) == 0, "the two mixes");
    CHECK(a.count >= 8 && b.count >= 8, "sizes");
    CHECK(strcmp(a.entries[0].spec.text, b.entries[0].spec.text) != 0, "their first (hot) transforms differ");
    CHECK(pgo_workload_builtin("smoke", &a) == 0 && pgo_workload_builtin("smoke2", &b) == 0, "the smoke mixes");
    CHECK(pgo_workload_builtin("nope", &a) != 0, "no such mix");
}

int main(int argc, char **argv) {
    if (argc != 2) return fprintf(stderr, "usage: test_pgo_logic VECTORS_DIR\n"), 2;
    specs_agree_with_the_shared_vectors(argv[1]);
    a_spec_records_its_parts();
    a_workload_file_lists_transforms_and_calls();
    every_bad_line_is_named_with_its_reason();
    the_built_in_mixes_parse_and_their_hot_transforms_differ();
    printf("%s: %d checks, %d failures\n", failures ? "FAILED" : "ok", checks, failures);
    return failures != 0;
}
