package com.example.tuner;

/**
 * One run of FFTW's planner: {@code fftwf-wisdom} on one transform. Regions of one spec share it
 * (a spec has one region name, so in practice one region).
 *
 * @param spec the transform
 */
public record FftwTask(FftwSpec spec) implements PlanTask {
    @Override
    public String label() {
        return spec.text(); // canonical: letters and digits only
    }

    @Override
    public long size() {
        return spec.points();
    }
}
