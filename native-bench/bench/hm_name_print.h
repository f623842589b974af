/* hm_name_print.h - prints a region name on one line, every byte of it, as the Java CLI's tables
 * show names (dev.hintmap.cli.Table.printable): a control character (C0 U+0000..U+001F, DEL,
 * C1 U+0080..U+009F) as \xNN, lower-case hex of its code point; a backslash doubled when an x,
 * another backslash or a control character follows it, else as itself; every other byte as it is.
 * A name may hold NUL (FORMAT.md §1), so the length, not a terminator, ends it. Used by hm-dump
 * and tested by test_unit and, against the Java tables, by cli.NativeDumpNamesTest. */
#ifndef HM_NAME_PRINT_H
#define HM_NAME_PRINT_H

#include <stddef.h>
#include <stdio.h>

/* Length in bytes of the control character at name[i], 0 when there is none: UTF-8 encodes C0 and
 * DEL in one byte, C1 as 0xC2 0x80..0x9F. */
static inline size_t hm_name_control_at(const unsigned char *name, size_t len, size_t i) {
    if (i >= len) return 0;
    if (name[i] < 0x20 || name[i] == 0x7f) return 1;
    if (name[i] == 0xc2 && i + 1 < len && name[i + 1] >= 0x80 && name[i + 1] <= 0x9f) return 2;
    return 0;
}

static inline void hm_name_print(FILE *out, const char *name, size_t len) {
    const unsigned char *u = (const unsigned char *)name;
    for (size_t i = 0; i < len; i++) {
        size_t control = hm_name_control_at(u, len, i);
        if (control == 1) {
            fprintf(out, "\\x%02x", u[i]);
        } else if (control == 2) {
            fprintf(out, "\\x%02x", u[i + 1]); /* U+0080..U+009F: the second byte is the code point */
            i++;
        } else if (u[i] == '\\' && i + 1 < len &&
                   (u[i + 1] == 'x' || u[i + 1] == '\\' || hm_name_control_at(u, len, i + 1) != 0)) {
            fputs("\\\\", out);
        } else {
            fputc(u[i], out);
        }
    }
}

#endif
