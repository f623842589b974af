package dev.hintmap.cli;

import java.util.Optional;

/**
 * A demangled C++ function name, as CUPTI and the profilers print kernel names, cut into the
 * parts a short form keeps, shortens or drops: {@code void cutlass::Kernel2<Op>(Op::Params)} is
 * return type {@code void }, qualifier {@code cutlass::}, base {@code Kernel2}, template arguments
 * {@code Op} and parameters {@code Op::Params}. A name cut short (the kept prefix of a name stored
 * shortened, FORMAT.md §1.1) parses too: its last part is then open ({@code templateClosed} or
 * {@code paramsClosed} false).
 *
 * <p>Only the brackets are read, not the C++ grammar: a qualifier group such as
 * {@code (anonymous namespace)::} belongs to the qualifier; {@code <} or {@code (} at the top
 * level ends it. A name without either (a C or Triton kernel, {@code triton_poi_fused_add_0}) or
 * one whose brackets do not balance ({@code operator<}) is not parsed: the caller then shortens it
 * as plain text.
 *
 * @param returnType what precedes the qualified name, with its trailing space ({@code "void "}), or ""
 * @param qualifier the namespaces and classes with their {@code ::}, or ""
 * @param base the function's own name
 * @param templateArgs what is between the top-level {@code <} and its {@code >}, or null when none
 * @param templateClosed whether the {@code >} is there
 * @param params what is between the parameter list's parentheses, or null when none
 * @param paramsClosed whether the {@code )} is there
 * @param rest what follows (e.g. {@code " const"}), or ""
 */
record CxxName(String returnType, String qualifier, String base, String templateArgs, boolean templateClosed,
        String params, boolean paramsClosed, String rest) {

    /** The parts of {@code name}, or empty when it is not a function name with template arguments or parameters. */
    static Optional<CxxName> parse(String name) {
        int n = name.length();
        int head = -1;
        int lastSpace = -1;
        for (int i = 0; i < n && head < 0; i++) {
            char c = name.charAt(i);
            switch (c) {
                case '(' -> {
                    int close = matching(name, i);
                    if (close >= 0 && name.startsWith("::", close + 1)) {
                        i = close; // "(anonymous namespace)::": part of the qualifier
                    } else {
                        head = i;
                    }
                }
                case '<' -> head = i;
                case ' ' -> lastSpace = i;
                case '>', ')', '[', ']', '{', '}' -> {
                    return Optional.empty(); // not the shape of a function name
                }
                default -> { }
            }
        }
        if (head <= 0) {
            return Optional.empty();
        }
        String returnType = name.substring(0, lastSpace + 1);
        String qualified = name.substring(lastSpace + 1, head);
        if (qualified.isEmpty()) {
            return Optional.empty();
        }
        int cut = qualified.lastIndexOf("::");
        String qualifier = cut < 0 ? "" : qualified.substring(0, cut + 2);
        String base = qualified.substring(cut < 0 ? 0 : cut + 2);
        int at = head;
        String templateArgs = null;
        boolean templateClosed = true;
        if (name.charAt(at) == '<') {
            int close = matching(name, at);
            templateClosed = close >= 0;
            templateArgs = name.substring(at + 1, templateClosed ? close : n);
            at = templateClosed ? close + 1 : n;
        }
        String params = null;
        boolean paramsClosed = true;
        if (at < n && name.charAt(at) == '(') {
            int close = matching(name, at);
            paramsClosed = close >= 0;
            params = name.substring(at + 1, paramsClosed ? close : n);
            at = paramsClosed ? close + 1 : n;
        }
        return Optional.of(new CxxName(returnType, qualifier, base, templateArgs, templateClosed, params, paramsClosed,
                name.substring(at)));
    }

    /** The qualifier's components: {@code at::native::} has two. */
    int qualifierDepth() {
        return qualifier.isEmpty() ? 0 : qualifier.split("::", -1).length - 1;
    }

    /** The first component of the qualifier with its {@code ::} ({@code at::} of {@code at::native::}). */
    String firstQualifier() {
        return qualifier.substring(0, qualifier.indexOf("::") + 2);
    }

    /**
     * The index of the bracket closing the one at {@code open}, any kind closing any kind (a
     * demangler's output is balanced), or -1 when the text ends first.
     */
    private static int matching(String s, int open) {
        int depth = 0;
        for (int i = open; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '<' || c == '(' || c == '[' || c == '{') {
                depth++;
            } else if (c == '>' || c == ')' || c == ']' || c == '}') {
                depth--;
                if (depth == 0) {
                    return i;
                }
            }
        }
        return -1;
    }
}
