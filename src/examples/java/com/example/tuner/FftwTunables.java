package com.example.tuner;

/**
 * Which transform a region of the FFTW runtime names ({@code fftw:SPEC}, {@link FftwSpec}), and the
 * bound past which this optimizer refuses to plan one: more than {@value #MAX_POINTS} points (2^24,
 * 128 MiB per single-precision complex array). FFTW's PATIENT planning time grows faster than the
 * size (over two minutes at 2^20 points on this project's machine): a larger transform would only
 * spend its cap and leave no wisdom. Its runtime plans it with ESTIMATE.
 */
public final class FftwTunables implements Tunables<FftwTask> {
    /** The prefix of the runtime's region names. */
    public static final String PREFIX = "fftw:";
    /** The most points of a planned transform: 2^24. */
    public static final long MAX_POINTS = 1L << 24;

    @Override
    public Tunable<FftwTask> of(String regionName) {
        if (!regionName.startsWith(PREFIX)) {
            return Tunable.no("not an FFTW region");
        }
        FftwSpec spec;
        try {
            spec = FftwSpec.parse(regionName.substring(PREFIX.length()));
        } catch (IllegalArgumentException e) {
            return Tunable.no("not an FFTW problem: " + e.getMessage());
        }
        long points = spec.points();
        if (points > MAX_POINTS) {
            return Tunable.no("over the bound: " + (points == Long.MAX_VALUE ? "more than 2^63" : String.valueOf(points))
                    + " points exceed 2^24");
        }
        return Tunable.yes(new FftwTask(spec));
    }
}
