package com.example.tuner;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.StringJoiner;

/**
 * The best configuration a tuner found for one CLBlast kernel, as CLBlastOverrideParameters takes it.
 *
 * @param kernel the kernel, e.g. {@code Xgemm}
 * @param timeMs the tuner's time for it, ms (lower is better; comparable only at one shape)
 * @param parameters the kernel's parameters by name, without the tuner's {@code PRECISION} entry
 */
public record TunedKernel(String kernel, double timeMs, Map<String, Long> parameters) {
    /** Keeps an immutable copy, in the given order. */
    public TunedKernel {
        parameters = Collections.unmodifiableMap(new LinkedHashMap<>(parameters));
    }

    /**
     * The parameters as the parameters file writes them.
     *
     * @return {@code NAME=VALUE NAME=VALUE ...}
     */
    public String parameterList() {
        StringJoiner j = new StringJoiner(" ");
        parameters.forEach((name, value) -> j.add(name + "=" + value));
        return j.toString();
    }
}
