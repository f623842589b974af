/* pgo_workload.c - workload files and the built-in mixes (pgo_workload.h). */
#include "pgo_workload.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/*
 * The built-in mixes (docs/PGO.md, "The FFTW workload"). In each, a few mid-size transforms called often hold
 * most of the time, and the largest transforms are called once a pass: an optimizer that tunes the largest
 * problems first (arm D) spends its budget where little time goes. "spectral" is the mix of the arms; "imaging"
 * has other hot transforms (a 512x512 complex transform that FFTW_ESTIMATE plans badly): the live loop switches
 * from "spectral" to it. "smoke" and "smoke2" are small versions for trying the loop in seconds.
 */
typedef struct mix_line {
    const char *spec;
    int calls;
} mix_line;

static const mix_line SPECTRAL[] = {
    {"cof256x256", 8},  {"rof65536", 16}, {"cob128x128", 32}, {"rob16384", 32}, {"cof16384", 96}, {"cof65536", 8},
    {"rof1024x768", 1}, {"cof262144", 1}, {"rof512x512", 1},  {"cof4096", 128}, {"cof64x64", 64}, {"cof1024", 256},
};
static const mix_line IMAGING[] = {
    {"cof512x512", 2}, {"rof512x512", 8}, {"cif128x128", 32}, {"rob256x256", 8}, {"cof4096", 32},
    {"rof1024x768", 1}, {"cof1024", 64},  {"rof2048", 16},
};
static const mix_line SMOKE[] = {{"cof64x64", 8}, {"cof1024", 16}, {"rof4096", 2}, {"cob256", 4}};
static const mix_line SMOKE2[] = {{"rof128x128", 8}, {"cof2048", 8}, {"rof4096", 2}, {"cob256", 4}};

typedef struct mix {
    const char *name;
    const mix_line *lines;
    size_t count;
} mix;

#define MIX(name, lines) {name, lines, sizeof lines / sizeof lines[0]}
static const mix MIXES[] = {MIX("spectral", SPECTRAL), MIX("imaging", IMAGING), MIX("smoke", SMOKE), MIX("smoke2", SMOKE2)};

const char *pgo_workload_builtin_names(void) { return "spectral|imaging|smoke|smoke2"; }

int pgo_workload_builtin(const char *name, pgo_workload *out) {
    for (size_t m = 0; m < sizeof MIXES / sizeof MIXES[0]; m++) {
        if (strcmp(MIXES[m].name, name) != 0) continue;
        memset(out, 0, sizeof *out);
        snprintf(out->name, sizeof out->name, "%s", name);
        for (size_t i = 0; i < MIXES[m].count; i++) {
            char why[160];
            if (pgo_spec_parse(MIXES[m].lines[i].spec, &out->entries[i].spec, why, sizeof why) != 0) abort(); /* a bug */
            out->entries[i].calls = MIXES[m].lines[i].calls;
        }
        out->count = MIXES[m].count;
        return 0;
    }
    return -1;
}

/* The next field of a line (spaces and tabs separate; '#' starts a comment), or NULL at its end. */
static char *next_field(char **cursor) {
    char *p = *cursor;
    while (*p == ' ' || *p == '\t') p++;
    if (*p == '\0' || *p == '#') return NULL;
    char *start = p;
    while (*p != '\0' && *p != ' ' && *p != '\t') p++;
    if (*p != '\0') *p++ = '\0';
    *cursor = p;
    return start;
}

int pgo_workload_read(FILE *f, const char *path, pgo_workload *out, char *err, size_t err_len) {
    memset(out, 0, sizeof *out);
    const char *base = strrchr(path, '/');
    snprintf(out->name, sizeof out->name, "%s", base ? base + 1 : path);
    char line[258];
    size_t lineno = 0;
    int first_line[PGO_WORKLOAD_MAX];
    while (fgets(line, sizeof line, f) != NULL) {
        lineno++;
        size_t n = strlen(line);
        if (n == sizeof line - 1 && line[n - 1] != '\n' && !feof(f))
            return snprintf(err, err_len, "%s:%zu: longer than 255 bytes", path, lineno), -1;
        line[strcspn(line, "\r\n")] = '\0';
        char *cursor = line;
        char *spec_text = next_field(&cursor);
        if (spec_text == NULL) continue; /* blank or comment */
        char *calls_text = next_field(&cursor);
        char *extra = calls_text ? next_field(&cursor) : NULL;
        char why[200], shown[3][80];
        pgo_printable(shown[0], sizeof shown[0], spec_text, strlen(spec_text));
        pgo_printable(shown[1], sizeof shown[1], calls_text ? calls_text : "", calls_text ? strlen(calls_text) : 0);
        pgo_printable(shown[2], sizeof shown[2], extra ? extra : "", extra ? strlen(extra) : 0);
        pgo_spec spec;
        if (pgo_spec_parse(spec_text, &spec, why, sizeof why) != 0)
            return snprintf(err, err_len, "%s:%zu: '%s' is not a transform: %s", path, lineno, shown[0], why), -1;
        if (pgo_spec_check_bound(&spec, why, sizeof why) != 0)
            return snprintf(err, err_len, "%s:%zu: %s: %s", path, lineno, shown[0], why), -1;
        if (calls_text == NULL)
            return snprintf(err, err_len, "%s:%zu: %s: no count of calls per pass (SPEC CALLS)", path, lineno, shown[0]), -1;
        char *end;
        errno = 0;
        long calls = strtol(calls_text, &end, 10);
        if (errno != 0 || *end != '\0' || calls < 1 || calls > PGO_WORKLOAD_MAX_CALLS || calls_text[0] == '+')
            return snprintf(err, err_len, "%s:%zu: %s: calls '%s' is not an integer from 1 to %d", path, lineno, shown[0],
                            shown[1], PGO_WORKLOAD_MAX_CALLS), -1;
        if (extra != NULL)
            return snprintf(err, err_len, "%s:%zu: %s: unexpected '%s' after the count (SPEC CALLS, '#' for comments)",
                            path, lineno, shown[0], shown[2]), -1;
        for (size_t i = 0; i < out->count; i++)
            if (strcmp(out->entries[i].spec.text, spec.text) == 0)
                return snprintf(err, err_len, "%s:%zu: %s is listed twice (first on line %d)", path, lineno, shown[0],
                                first_line[i]), -1;
        if (out->count == PGO_WORKLOAD_MAX)
            return snprintf(err, err_len, "%s:%zu: more than %d transforms", path, lineno, PGO_WORKLOAD_MAX), -1;
        first_line[out->count] = (int)lineno;
        out->entries[out->count].spec = spec;
        out->entries[out->count++].calls = (int)calls;
    }
    if (ferror(f)) return snprintf(err, err_len, "%s: read error", path), -1;
    if (out->count == 0) return snprintf(err, err_len, "%s: no transform (lines of SPEC CALLS)", path), -1;
    return 0;
}
