/*
 * encoded_name.c - region names: UTF-8 validation and the encoding into little-endian words (FORMAT
 * §3.6).
 * Twin of the Java class dev.hintmap.store.EncodedName.
 *
 * Section references (§n) are to docs/FORMAT.md. Every atomic access to the mapping names its
 * memory order; the one-line comment next to it says why. Decisions that FORMAT.md leaves open
 * are marked "DECISION:". The library's internal interface is src/hm_internal.h.
 */
#define _GNU_SOURCE 1
#define HM_LIBRARY_SOURCE 1 /* this file is part of the library: hm_internal.h declares its internals */

#include "hm_internal.h"
#include "hm_utf8.h"

#include <string.h>

int hmi_utf8_valid(const unsigned char *p, size_t n) {
    size_t i = 0;
    while (i < n) {
        if (n - i >= 8) { /* kernel names are ASCII: eight bytes at a time while no byte has its top bit */
            uint64_t w;
            memcpy(&w, p + i, 8);
            if ((w & UINT64_C(0x8080808080808080)) == 0) { i += 8; continue; }
        }
        size_t k = hmi_utf8_char(p + i, n - i); /* the one rule, hm_utf8.h */
        if (k == 0) return 0;
        i += k;
    }
    return 1;
}

/* Longest prefix of p[0..n) of at most `limit` bytes that ends on a character boundary (p is valid UTF-8). */
static size_t utf8_prefix(const unsigned char *p, size_t n, size_t limit) {
    if (n <= limit) return n;
    size_t cut = limit;
    while (cut > 0 && (p[cut] & 0xC0) == 0x80) cut--; /* p[cut] continues a character: the cut would split it */
    return cut;
}

/* The stored form of a name known valid, len > limit >= HM_MIN_NAME_BYTES (FORMAT §1.1), into
 * out[limit]; returns its length: the longest prefix of at most limit - 33 bytes that ends on a
 * character boundary, '~', and the 32 lowercase hex digits of the first 16 bytes of SHA-256 over
 * the whole name. Not cached: every call over the limit digests the whole name (a caller on a hot
 * path resolves an hm_region once instead, hintmap.h). */
static size_t name_shorten(const char *name, size_t len, uint32_t limit, char *out) {
    static const char hex[] = "0123456789abcdef";
    unsigned char digest[HMI_SHA256_BYTES];
    hmi_sha256(name, len, digest);
    size_t keep = utf8_prefix((const unsigned char *)name, len, limit - HM_NAME_TAG_BYTES);
    memcpy(out, name, keep);
    char *tag = out + keep;
    tag[0] = '~';
    for (unsigned i = 0; i < HM_NAME_DIGEST_BYTES; i++) { /* most significant nibble first */
        tag[1 + 2 * i] = hex[digest[i] >> 4];
        tag[2 + 2 * i] = hex[digest[i] & 0xF];
    }
    return keep + HM_NAME_TAG_BYTES;
}

int hm_name_canonical(const char *name, size_t len, uint32_t max_name_bytes, char *out, size_t out_cap,
                      size_t *out_len) {
    if (name == NULL || out == NULL || out_len == NULL) return HM_EINVAL;
    if (!hmi_name_limit_valid(max_name_bytes)) return HM_EINVAL;
    if (len == 0) return HM_EEMPTYNAME;
    if (!hmi_utf8_valid((const unsigned char *)name, len)) return HM_EBADNAME;
    char stored[HM_MAX_NAME_BYTES_LIMIT];
    size_t n = len;
    if (len > max_name_bytes) n = name_shorten(name, len, max_name_bytes, stored);
    *out_len = n;
    if (out_cap < n) return HM_EINVAL;
    memmove(out, len > max_name_bytes ? stored : name, n); /* out may be name itself */
    return HM_OK;
}

/* Validates `name` for store s and encodes its stored form (FORMAT §1.1) into words
 * (HM_MAX_NAME_WORDS capacity). */
int hmi_name_encode(hm_store *s, const char *name, size_t len, uint64_t *words, hm_name *out) {
    if (name == NULL) return hmi_fail(s, HM_EINVAL, "region name is NULL");
    if (len == 0) return hmi_fail(s, HM_EEMPTYNAME, "region name is empty");
    /* Not UTF-8 before too long, as Java's EncodedName: a name that is both is a bad name (FORMAT §1.1). */
    if (!hmi_utf8_valid((const unsigned char *)name, len))
        return hmi_fail(s, HM_EBADNAME, "region name is not valid UTF-8");
    if (len > s->max_name_bytes && (s->flags & HM_OPEN_REJECT_LONG_NAMES))
        return hmi_fail(s, HM_ENAMETOOLONG, "region name of %zu bytes is longer than max_name_bytes %u",
                        len, s->max_name_bytes);
    if (len > s->max_name_bytes) {
        len = name_shorten(name, len, s->max_name_bytes, (char *)words); /* words holds HM_MAX_NAME_BYTES_LIMIT bytes */
        name = NULL;
    }
    uint32_t nwords = (uint32_t)((len + 7) / 8);
    if (name != NULL) {
        words[nwords - 1] = 0;
        memcpy(words, name, len);
    } else {
        memset((char *)words + len, 0, (size_t)nwords * 8 - len); /* zero past the end, as slots store names */
    }
    out->len = (uint32_t)len;
    out->nwords = nwords;
    out->words = words;
    out->hash = hash_words(words, out->len, nwords);
    return HM_OK;
}
