/* hm_layout.c - hm_layout_describe() of hm_layout.h. */
#include "hm_layout.h"

#include "hintmap_format.h"

#include <stdarg.h>
#include <stdio.h>

typedef struct out {
    char *buf;
    size_t cap, len;
} out;

static void put(out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(out *o, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    /* Keep counting past cap, so that the caller learns the size it needs. */
    int w = vsnprintf(o->len < o->cap ? o->buf + o->len : NULL, o->len < o->cap ? o->cap - o->len : 0, fmt, ap);
    va_end(ap);
    if (w > 0) o->len += (size_t)w;
}

/* Offset and size as this build laid the member out (pinned to the list's offsets by the
 * _Static_asserts of hintmap_format.h), in Java's format: "%s.%s %d %d". */
#define D_F(st, name, up, off, type)                                                            \
    put(o, "%s.%s %zu %zu\n", #st, #name, offsetof(HM_CTYPE(st), name), sizeof(((HM_CTYPE(st) *)0)->name));
#define D_A(st, name, up, off, type, cnt) D_F(st, name, up, off, type)
#define D_STRUCT(st, LIST)                                                                      \
    LIST(D_F, D_A, HM_LAYOUT_SKIP_R, HM_LAYOUT_SKIP_T)                                          \
    put(o, "%s size %zu\n", #st, sizeof(HM_CTYPE(st)));

size_t hm_layout_describe(char *buf, size_t cap) {
    out oo = {buf, cap, 0}, *o = &oo;
    if (cap > 0) buf[0] = '\0';
    /* The order of Layouts.describe(): header, writer entry, slot, record copy. */
    D_STRUCT(header, HM_LAYOUT_HEADER)
    D_STRUCT(writer_entry, HM_LAYOUT_WRITER_ENTRY)
    D_STRUCT(slot_fixed, HM_LAYOUT_SLOT_FIXED)
    D_STRUCT(record_copy, HM_LAYOUT_RECORD_COPY)
    return oo.len;
}
