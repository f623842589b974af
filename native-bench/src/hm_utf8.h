/*
 * hm_utf8.h - the one UTF-8 rule of the C code (FORMAT §1: region names are well-formed UTF-8):
 * the length of the well-formed character that starts a byte string, and where none does, the
 * length of the ill-formed part a reader shows as one replacement character. The library's
 * hmi_utf8_valid (encoded_name.c: the names a writer accepts and recovery keeps, §8 step 2c) and
 * the CUPTI collector's sanitiser (cupti/hmc_translate.c: the bytes it turns into '?') are both
 * built on it, so they cannot disagree. Twin of the Java class dev.hintmap.format.Utf8; the shared
 * vectors vectors/utf8.txt prove that the two accept the same bytes (C test_unit, Java Utf8Test).
 * Header-only (static inline): the collector uses it without reaching into the library's internals.
 */
#ifndef HM_UTF8_H
#define HM_UTF8_H

#include <stddef.h>

/* Bytes of the well-formed UTF-8 character at p[0..n), n >= 1: 1 to 4, or 0 when none starts there
 * (RFC 3629: no overlong form, no surrogate, nothing above U+10FFFF, no truncated sequence). */
static inline size_t hmi_utf8_char(const unsigned char *p, size_t n) {
    unsigned c = p[0];
    if (c < 0x80) return 1;
    size_t len;
    unsigned lo = 0x80, hi = 0xBF; /* the range of the second byte */
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2; /* C0 and C1 could only start overlong forms */
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        if (c == 0xE0) lo = 0xA0; /* below: an overlong form of U+0000..U+07FF */
        if (c == 0xED) hi = 0x9F; /* above: the surrogates U+D800..U+DFFF */
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        if (c == 0xF0) lo = 0x90; /* below: an overlong form of U+0000..U+FFFF */
        if (c == 0xF4) hi = 0x8F; /* above: beyond U+10FFFF */
    } else {
        return 0; /* a continuation byte, C0, C1, F5..FF */
    }
    if (n < len || p[1] < lo || p[1] > hi) return 0;
    for (size_t i = 2; i < len; i++)
        if ((p[i] & 0xC0) != 0x80) return 0;
    return len;
}

/* Where hmi_utf8_char(p, n) is 0: the bytes of the maximal subpart of an ill-formed sequence at
 * p[0..n), n >= 1, at least 1 - the longest run from p[0] that begins some well-formed character (a
 * lead byte and the continuation bytes it allows, short of a whole character), or the one byte where
 * no character can begin. What a reader shows as one replacement (FORMAT §9.1: one U+FFFD per
 * maximal subpart, Unicode chapter 3, WHATWG, Python's errors="replace"): ED A0 80 is three of
 * them, E2 82 one. Twin of dev.hintmap.format.Utf8.decodeReplacing; vectors/utf8-replacement.txt. */
static inline size_t hmi_utf8_malformed(const unsigned char *p, size_t n) {
    unsigned c = p[0];
    size_t len;
    unsigned lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        if (c == 0xE0) lo = 0xA0;
        if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        if (c == 0xF0) lo = 0x90;
        if (c == 0xF4) hi = 0x8F;
    } else {
        return 1; /* no character begins with this byte */
    }
    if (n < 2 || p[1] < lo || p[1] > hi) return 1;
    size_t k = 2;
    while (k < len - 1 && k < n && (p[k] & 0xC0) == 0x80) k++;
    return k;
}

#endif /* HM_UTF8_H */
