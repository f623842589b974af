/* pgo_params.c - the CLBlast parameters file (pgo_params.h). */
#define _POSIX_C_SOURCE 200809L

#include "pgo_params.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Parses "NAME=VALUE NAME=VALUE ..." into s: 1, or 0 naming the problem in why. */
static int parse_set(char *list, pgo_set *s, char *why, size_t why_len) {
    s->count = 0;
    for (char *save = NULL, *tok = strtok_r(list, " ", &save); tok != NULL; tok = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(tok, '=');
        if (eq == NULL || eq == tok || eq[1] == '\0') return snprintf(why, why_len, "'%.40s' is not NAME=VALUE", tok), 0;
        *eq = '\0';
        char *end;
        errno = 0;
        unsigned long long v = strtoull(eq + 1, &end, 10);
        if (errno != 0 || *end != '\0' || eq[1] == '-' || eq[1] == '+')
            return snprintf(why, why_len, "the value of %.40s is not a non-negative integer", tok), 0;
        if (pgo_set_get(s, tok, (size_t)-1) != (size_t)-1) return snprintf(why, why_len, "%.40s given twice", tok), 0;
        if (pgo_set_put(s, tok, (size_t)v) != 0)
            return snprintf(why, why_len, "more than %d parameters, or a name over %d bytes", PGO_SET_MAX, PGO_NAME_MAX - 1), 0;
    }
    if (s->count == 0) snprintf(why, why_len, "no parameters");
    return s->count > 0;
}

int pgo_params_read(FILE *f, const char *path, pgo_params *p, FILE *warn) {
    char line[4096];
    size_t cap = 0, lineno = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '\0' || line[0] == '#') continue;
        char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
        char why[160] = "not REGION<TAB>KERNEL<TAB>PARAMETERS";
        pgo_param_entry e;
        memset(&e, 0, sizeof e);
        int ok = t1 != NULL && t2 != NULL;
        if (ok && (size_t)(t1 - line) >= sizeof e.region) {
            snprintf(why, sizeof why, "a region name over %d bytes", PGO_REGION_MAX - 1);
            ok = 0;
        }
        if (ok) {
            *t1 = '\0';
            *t2 = '\0';
            memcpy(e.region, line, (size_t)(t1 - line) + 1);
            int k = pgo_kernel_of(t1 + 1);
            if (k < 0) snprintf(why, sizeof why, "kernel '%.40s' is not one this runtime sets", t1 + 1);
            e.kernel = (pgo_kernel)k;
            ok = k >= 0 && parse_set(t2 + 1, &e.set, why, sizeof why);
            if (ok && pgo_params_find(p, e.region, e.kernel) != NULL) {
                snprintf(why, sizeof why, "a second line for this region and %s", PGO_KERNEL_NAMES[k]);
                ok = 0;
            }
        }
        if (!ok) {
            fprintf(warn, "clblast-runtime: %s:%zu skipped: %s\n", path, lineno, why);
            continue;
        }
        if (p->count == cap) {
            cap = cap ? 2 * cap : 16;
            pgo_param_entry *grown = realloc(p->entries, cap * sizeof *grown);
            if (grown == NULL) return -1;
            p->entries = grown;
        }
        p->entries[p->count++] = e;
    }
    return 0;
}

const pgo_set *pgo_params_find(const pgo_params *p, const char *region, pgo_kernel k) {
    for (size_t i = 0; i < p->count; i++)
        if (p->entries[i].kernel == k && strcmp(p->entries[i].region, region) == 0) return &p->entries[i].set;
    return NULL;
}

void pgo_params_free(pgo_params *p) {
    free(p->entries);
    p->entries = NULL;
    p->count = 0;
}
