/*
 * hmc_options.c - the environment and the messages of every collector (see hmc_options.h).
 */
#include "hmc_options.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void hmc_say(const hmc_voice *v, const char *fmt, ...) {
    char line[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s: %s\n", v->name, line);
}

int hmc_env_u64(const hmc_voice *v, const char *var, uint64_t lo, uint64_t hi, uint64_t dflt, uint64_t *out, int *given) {
    const char *text = getenv(var);
    if (given) *given = 0;
    if (text == NULL || text[0] == '\0') {
        *out = dflt;
        return 0;
    }
    /* Decimal digits only: strtoull alone also takes leading white space, a sign ("-5" wraps to a huge
     * value) and, with base 0, hex; a setting is either exactly a number or refused. */
    int digits = 1;
    for (const char *c = text; *c != '\0'; c++) digits &= *c >= '0' && *c <= '9';
    char *end;
    errno = 0;
    unsigned long long x = digits ? strtoull(text, &end, 10) : 0;
    if (!digits || errno != 0 || *end != '\0' || x < lo || x > hi) {
        hmc_say(v, "%s=%s: expected an integer in %" PRIu64 "..%" PRIu64 "; %s", var, text, lo, hi, v->refusal);
        return -1;
    }
    *out = x;
    if (given) *given = 1;
    return 0;
}

int hmc_store_options_from_env(const hmc_voice *v, const char *default_path, hmc_store_options *out) {
    const char *path = getenv("HINTMAP_FILE");
    out->path = (path == NULL || path[0] == '\0') ? default_path : path;
    hm_options_init(&out->open);
    uint64_t capacity, name_bytes, hot_ns;
    int cap_given, nb_given, hot_given;
    if (hmc_env_u64(v, "HINTMAP_CAPACITY", 1, HM_MAX_CAPACITY, HM_DEFAULT_CAPACITY, &capacity, &cap_given) < 0 ||
        hmc_env_u64(v, "HINTMAP_NAME_BYTES", HM_MIN_NAME_BYTES, HM_MAX_NAME_BYTES_LIMIT, HM_DEFAULT_MAX_NAME_BYTES,
                    &name_bytes, &nb_given) < 0 ||
        hmc_env_u64(v, "HINTMAP_HOT_THRESHOLD_NS", 0, (uint64_t)INT64_MAX, HM_DEFAULT_HOT_THRESHOLD_NS, &hot_ns,
                    &hot_given) < 0)
        return -1;
    /* Only what the environment set is explicit: an existing file's own layout wins otherwise. */
    if (cap_given) hm_options_set_capacity(&out->open, (uint32_t)capacity);
    if (nb_given) hm_options_set_max_name_bytes(&out->open, (uint32_t)name_bytes);
    if (hot_given) hm_options_set_hot_threshold_ns(&out->open, hot_ns);
    return 0;
}

int hmc_store_open(const hmc_voice *v, const hmc_store_options *o, hm_store **out) {
    char err[512];
    if (hm_open_ex(o->path, &o->open, out, err, sizeof err) < 0) {
        hmc_say(v, "cannot open %s: %s; %s", o->path, err, v->refusal);
        return -1;
    }
    return 0;
}
