/* hm-layout: prints the layout of FORMAT §3 as this C build has it, without Java:
 *
 *   struct.field offset size      one per named field (header, writer_entry, slot_fixed, record_copy)
 *   struct size N                 after each struct's fields
 *   layout_fingerprint <16 hex>   hm_layout_fingerprint() (§3.4)
 *
 * The lines before the last are what Java's Layouts.describe() prints; they are committed, after
 * the fingerprint, in src/test/resources/vectors/layout.txt, which both test suites compare
 * with their own layout. Exit 0, or 1 if the description cannot be built. */
#include "hintmap.h"
#include "hm_layout.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    (void)argv;
    if (argc != 1) {
        fprintf(stderr, "usage: hm-layout\n");
        return 2;
    }
    size_t need = hm_layout_describe(NULL, 0);
    char *text = malloc(need + 1);
    if (text == NULL) {
        perror("hm-layout");
        return 1;
    }
    hm_layout_describe(text, need + 1);
    fputs(text, stdout);
    printf("layout_fingerprint %016" PRIx64 "\n", hm_layout_fingerprint());
    free(text);
    return fflush(stdout) == 0 ? 0 : 1;
}
