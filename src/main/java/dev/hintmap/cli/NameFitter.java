package dev.hintmap.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Fits a region name into the columns a table leaves it, saying as much as fits (docs/GUIDE.md,
 * "Tables and long kernel names"). A name that fits is shown whole. Otherwise, in the {@link Style#SHORT}
 * style, a C++ kernel name ({@link CxxName}) loses, in this order and only as far as needed: its
 * return type ({@code void }), its parameter list ({@code (…)}), the middle of its template
 * arguments, and the middle of its qualifier ({@code at::…::} then {@code …::}) — so that
 * {@code void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params)}
 * becomes {@code cutlass::Kernel2<cutlass_80_tensorop_bf16…nn_align8>(…)} and then
 * {@code cutlass::Kernel2<…>(…)}: the base name, which says the most, goes last. Any other name,
 * and every name in the {@link Style#STORED} style, keeps its start and its end with the cut
 * marked in the middle. The tag of a name stored shortened ({@code ~} and its hash, FORMAT.md §1.1)
 * is always kept whole at the end, as it tells two such names apart; only a column narrower than
 * the tag and a few characters cuts into it.
 *
 * <p>Why not the base name alone, as {@code nsys stats ...:base} and {@code ncu --print-kernel-base
 * function} offer: those reports add up the kernels of one base name; a table here has a row per
 * region, and rows of one base name would look the same.
 */
final class NameFitter {
    /** How a name too wide for its column is shortened. */
    enum Style {
        /** C++ names lose return type, parameters, then the middle of template arguments and qualifier. */
        SHORT,
        /** The stored name as it is, its middle cut out. */
        STORED
    }

    /** Columns of template arguments worth a longer qualifier (below them, the qualifier is cut first). */
    static final int MIN_TEMPLATE_COLUMNS = 12;

    /** Columns of the base name below which the C++ structure is not worth its marks. */
    static final int MIN_BASE_COLUMNS = 6;

    /** Columns of name beside a tag below which the tag is cut too (a column too narrow for both). */
    static final int MIN_BESIDE_TAG = 4;

    private NameFitter() {}

    /**
     * {@code name} in at most {@code width} terminal columns.
     *
     * @param name the name as printed ({@link Table#printable}), ending in {@code tag}
     * @param tag the stored-shortened tag at its end, or ""
     * @param width the columns, {@code >= 1}
     * @param ellipsis the mark of a cut: {@code …}, or {@code ...} where the output cannot encode it
     */
    static String fit(String name, String tag, int width, Style style, String ellipsis) {
        if (Table.columns(name) <= width) {
            return name;
        }
        int budget = width - Table.columns(tag);
        if (budget < MIN_BESIDE_TAG) {
            return middle(name, width, ellipsis); // no room beside the tag: cut hard, keeping both ends
        }
        String body = name.substring(0, name.length() - tag.length());
        Optional<CxxName> cxx = style == Style.SHORT ? CxxName.parse(body) : Optional.empty();
        if (cxx.isPresent()) {
            Optional<String> shortForm = shortForm(cxx.get(), budget, ellipsis);
            if (shortForm.isPresent()) {
                return shortForm.get() + tag;
            }
            body = body.substring(cxx.get().returnType().length()); // the return type says least of all
        }
        return middle(body, budget, ellipsis) + tag;
    }

    /** The most of {@code name} that fits {@code width}, in the order the class comment gives. */
    private static Optional<String> shortForm(CxxName name, int width, String ellipsis) {
        String args = name.templateArgs();
        String open = args == null ? "" : "<";
        String close = args == null || !name.templateClosed() ? "" : ">";
        String whole = name.qualifier() + name.base() + open + (args == null ? "" : args) + close + params(name, null)
                + name.rest();
        if (Table.columns(whole) <= width) {
            return Optional.of(whole);
        }
        String params = params(name, ellipsis);
        List<String> qualifiers = qualifiers(name, ellipsis);
        for (int q = 0; q < qualifiers.size(); q++) {
            String qualifier = qualifiers.get(q);
            String fixed = qualifier + name.base() + open + close + params + name.rest();
            int room = width - Table.columns(fixed);
            if (args == null) {
                if (room >= 0) {
                    return Optional.of(fixed);
                }
                continue;
            }
            // A longer qualifier only while the template arguments keep a readable part; the shortest takes any room.
            boolean shortest = q == qualifiers.size() - 1;
            int need = shortest ? Table.columns(ellipsis) : Math.min(Table.columns(args), MIN_TEMPLATE_COLUMNS);
            if (room >= need) {
                return Optional.of(qualifier + name.base() + open + middle(args, room, ellipsis) + close + params
                        + name.rest());
            }
        }
        // Not even the base name with <…> fits: the base's own start and end, the rest marked as cut.
        String around = (args == null ? "" : open + ellipsis + close) + params + name.rest();
        String qualifier = name.qualifier().isEmpty() ? "" : ellipsis + "::";
        int room = width - Table.columns(qualifier + around);
        if (room < MIN_BASE_COLUMNS) {
            return Optional.empty(); // a column this narrow: the plain start and end of the name
        }
        return Optional.of(qualifier + middle(name.base(), room, ellipsis) + around);
    }

    /** The parameter list: whole ({@code ellipsis} null), or {@code (…)} when it has any parameter. */
    private static String params(CxxName name, String ellipsis) {
        if (name.params() == null) {
            return "";
        }
        String inside = ellipsis == null || name.params().isEmpty() ? name.params() : ellipsis;
        return "(" + inside + (name.paramsClosed() ? ")" : "");
    }

    /** The qualifier, longest first: whole, its first component and the cut ({@code at::…::}), the cut alone. */
    private static List<String> qualifiers(CxxName name, String ellipsis) {
        List<String> forms = new ArrayList<>(3);
        forms.add(name.qualifier());
        if (name.qualifierDepth() >= 2) {
            forms.add(name.firstQualifier() + ellipsis + "::");
        }
        if (name.qualifierDepth() >= 1) {
            forms.add(ellipsis + "::");
        }
        return forms;
    }

    /**
     * {@code text} in at most {@code width} columns: whole when it fits, else its start and its end
     * around {@code ellipsis} (the start one column longer when the columns are odd); the mark alone
     * when only it fits, and cut hard when not even the mark fits.
     */
    static String middle(String text, int width, String ellipsis) {
        if (Table.columns(text) <= width) {
            return text;
        }
        int mark = Table.columns(ellipsis);
        if (width <= mark) {
            return width == mark ? ellipsis : Table.cut(text, width); // the mark alone, or not even that: cut hard
        }
        int keep = width - mark;
        int start = (keep + 1) / 2;
        return Table.cut(text, start) + ellipsis + lastColumns(text, keep - start);
    }

    /** The longest suffix of {@code text} that fits {@code width} columns. */
    private static String lastColumns(String text, int width) {
        int columns = 0;
        int i = text.length();
        while (i > 0) {
            int cp = text.codePointBefore(i);
            int w = Table.columns(Character.toString(cp));
            if (columns + w > width) {
                break;
            }
            columns += w;
            i -= Character.charCount(cp);
        }
        return text.substring(i);
    }
}
