/*
 * hm_layout.h - the canonical description of the layout of FORMAT §3, from the X-macro lists
 * of hintmap_format.h. Not part of libhintmap (users have no use for it): compiled into the
 * hm-layout tool and the unit tests, which compare it with vectors/layout.txt, the text Java's
 * Layouts.describe() prints. So the C lists and the Java StructLayouts are checked against one
 * committed description instead of against each other by hand.
 */
#ifndef HM_LAYOUT_H
#define HM_LAYOUT_H

#include <stddef.h>

/** Writes the description into buf (NUL-terminated, truncated to cap) and returns its length
 *  without the NUL, as snprintf does: one line "struct.field offset size" per named field of
 *  header, writer_entry, slot_fixed and record_copy (reserved bytes and the slot's variable name
 *  tail are not members of the description), then "struct size N" per struct. */
size_t hm_layout_describe(char *buf, size_t cap);

#endif /* HM_LAYOUT_H */
