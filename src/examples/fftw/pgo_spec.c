/* pgo_spec.c - fftwf-wisdom's problem syntax (pgo_spec.h). */
#include "pgo_spec.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const KIND_NAMES[] = {"f", "b", "h", "e00", "e01", "e10", "e11", "o00", "o01", "o10", "o11"};

void pgo_printable(char *out, size_t len, const char *text, size_t n) {
    size_t o = 0;
    for (size_t i = 0; i < n && o + 5 < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c < 0x20 || c == 0x7f) o += (size_t)snprintf(out + o, len - o, "\\x%02x", c);
        else out[o++] = (char)c;
    }
    out[o < len ? o : len - 1] = '\0';
}

int pgo_spec_parse(const char *text, pgo_spec *out, char *why, size_t why_len) {
    char shown[64];
    memset(out, 0, sizeof *out);
    size_t len = strlen(text);
    if (len < 3) return snprintf(why, why_len, "too short for <type><place><direction><sizes>"), -1;
    char type = text[0];
    if (type != 'c' && type != 'r' && type != 'k') {
        pgo_printable(shown, sizeof shown, text, 1);
        return snprintf(why, why_len, "type '%s' is not c (complex), r (real) or k (real-to-real)", shown), -1;
    }
    if (text[1] != 'i' && text[1] != 'o') {
        pgo_printable(shown, sizeof shown, text + 1, 1);
        return snprintf(why, why_len, "place '%s' is not i (in place) or o (out of place)", shown), -1;
    }
    size_t at = 2;
    int forward = 1;
    if (type != 'k') {
        if (text[2] != 'f' && text[2] != 'b') {
            pgo_printable(shown, sizeof shown, text + 2, 1);
            return snprintf(why, why_len, "direction '%s' is not f (forward) or b (backward)", shown), -1;
        }
        forward = text[2] == 'f';
        at = 3;
    }
    if (text[at] == '\0') return snprintf(why, why_len, "no sizes"), -1;
    int rank = 0;
    const char *part = text + at;
    for (;;) {
        const char *end = strchr(part, 'x');
        size_t plen = end ? (size_t)(end - part) : strlen(part);
        size_t digits = 0;
        while (digits < plen && part[digits] >= '0' && part[digits] <= '9') digits++;
        pgo_printable(shown, sizeof shown, part, plen);
        if (digits == 0) return snprintf(why, why_len, "'%s' does not start with a size", shown), -1;
        if (part[0] == '0') return snprintf(why, why_len, "a size is zero or has a leading zero: '%s'", shown), -1;
        if (digits > 9) return snprintf(why, why_len, "a size has more than 9 digits: '%s'", shown), -1;
        long value = 0;
        for (size_t i = 0; i < digits; i++) value = value * 10 + (part[i] - '0');
        char kind_text[64];
        pgo_printable(kind_text, sizeof kind_text, part + digits, plen - digits);
        if (rank < PGO_SPEC_MAX_RANK) out->dims[rank] = (int)value;
        if (type == 'k') {
            int kind = -1;
            for (int k = 0; k < (int)(sizeof KIND_NAMES / sizeof KIND_NAMES[0]); k++)
                if (strlen(KIND_NAMES[k]) == plen - digits && strncmp(KIND_NAMES[k], part + digits, plen - digits) == 0) kind = k;
            if (kind < 0)
                return snprintf(why, why_len, "size %ld of a k transform needs a kind (f, b, h, e00-e11, o00-o11), not '%s'",
                                value, kind_text), -1;
            if (rank < PGO_SPEC_MAX_RANK) out->kinds[rank] = (pgo_kind)kind;
        } else if (plen > digits) {
            return snprintf(why, why_len, "'%s' after size %ld (kinds are for k transforms only)", kind_text, value), -1;
        }
        rank++;
        if (end == NULL) break;
        part = end + 1;
    }
    if (rank > PGO_SPEC_MAX_RANK) return snprintf(why, why_len, "%d dimensions: at most %d", rank, PGO_SPEC_MAX_RANK), -1;
    if (len > PGO_SPEC_TEXT_MAX) return snprintf(why, why_len, "longer than %d characters", PGO_SPEC_TEXT_MAX), -1;
    memcpy(out->text, text, len + 1);
    out->type = type;
    out->in_place = text[1] == 'i';
    out->forward = forward;
    out->rank = rank;
    return 0;
}

uint64_t pgo_spec_points(const pgo_spec *s) {
    uint64_t p = 1;
    for (int i = 0; i < s->rank; i++) {
        uint64_t d = (uint64_t)s->dims[i];
        p = p > INT64_MAX / d ? INT64_MAX : p * d; /* saturating where Java's long does */
    }
    return p;
}

int pgo_spec_check_bound(const pgo_spec *s, char *why, size_t why_len) {
    uint64_t points = pgo_spec_points(s);
    if (points <= PGO_SPEC_MAX_POINTS) return 0;
    if (points == INT64_MAX) snprintf(why, why_len, "over the bound: more than 2^63 points exceed 2^24");
    else snprintf(why, why_len, "over the bound: %llu points exceed 2^24", (unsigned long long)points);
    return -1;
}

double pgo_spec_flops(const pgo_spec *s) {
    double n = (double)pgo_spec_points(s);
    return (s->type == 'c' ? 5.0 : 2.5) * n * log2(n > 1 ? n : 2);
}

/* A real transform's complex side: the last size halved plus one. Its real side in place: padded to twice that. */
static size_t complex_half(const pgo_spec *s) {
    size_t outer = 1;
    for (int i = 0; i + 1 < s->rank; i++) outer *= (size_t)s->dims[i];
    return outer * ((size_t)s->dims[s->rank - 1] / 2 + 1);
}

size_t pgo_spec_in_floats(const pgo_spec *s) {
    size_t n = (size_t)pgo_spec_points(s);
    switch (s->type) {
    case 'c': return 2 * n;
    case 'r':
        if (s->in_place) return 2 * complex_half(s);
        return s->forward ? n : 2 * complex_half(s);
    default: return n;
    }
}

size_t pgo_spec_out_floats(const pgo_spec *s) {
    size_t n = (size_t)pgo_spec_points(s);
    if (s->in_place) return 0;
    switch (s->type) {
    case 'c': return 2 * n;
    case 'r': return s->forward ? 2 * complex_half(s) : n;
    default: return n;
    }
}
