package com.example.optimizer;

import static com.example.optimizer.PassScheduler.DEFAULT_SCHEDULE;
import static com.example.optimizer.PassScheduler.HOT_SCHEDULE;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The optimizer example: hot regions get the expensive passes; missing, thin, stale or broken hints fall back. */
class PassSchedulerTest {
    @TempDir
    Path dir;

    private Path profile() throws Exception {
        Path file = dir.resolve("app.hints");
        try (HintStore runtime = HintStore.open(file, HintStoreOptions.defaults())) {
            for (int i = 0; i < 100; i++) {
                runtime.record("gemm_bf16_128x128x64", 420_000, 1 << 20); // hot: mean 420 µs
                runtime.record("elementwise_gelu", 3_000, 1 << 12);       // cold
            }
            runtime.record("one_off_reduction", 900_000, 64);             // hot, but one sample only
        }
        return file;
    }

    private static PassScheduler scheduler(Path file, Clock clock) {
        return new PassScheduler(file, Duration.ofMinutes(5), 10, clock);
    }

    @Test
    void hotRegionsGetTheExpensiveScheduleAndEverythingElseTheDefault() throws Exception {
        PassScheduler s = scheduler(profile(), Clock.systemUTC());
        assertEquals(HOT_SCHEDULE, s.scheduleFor("gemm_bf16_128x128x64"));
        assertEquals(DEFAULT_SCHEDULE, s.scheduleFor("elementwise_gelu"));
        assertEquals(DEFAULT_SCHEDULE, s.scheduleFor("never_dispatched"), "absent hint");
        assertEquals(DEFAULT_SCHEDULE, s.scheduleFor("one_off_reduction"), "too few samples to trust");
    }

    @Test
    void aMissingDamagedOrForeignFileMeansTheDefaultScheduleNotAnError() throws Exception {
        assertEquals(DEFAULT_SCHEDULE, scheduler(dir.resolve("none.hints"), Clock.systemUTC()).scheduleFor("gemm_bf16_128x128x64"));
        Path damaged = Files.write(dir.resolve("damaged.hints"), new byte[10_000]);
        assertEquals(DEFAULT_SCHEDULE, scheduler(damaged, Clock.systemUTC()).scheduleFor("gemm_bf16_128x128x64"));
        Path text = Files.writeString(dir.resolve("notes.hints"), "not hints at all, but long enough".repeat(200));
        assertEquals(DEFAULT_SCHEDULE, scheduler(text, Clock.systemUTC()).scheduleFor("gemm_bf16_128x128x64"));
    }

    @Test
    void staleHintsAreReReadAndIgnoredWhenTheyCannotBeRefreshed() throws Exception {
        Path file = profile();
        MutableClock clock = new MutableClock(Instant.now());
        PassScheduler s = scheduler(file, clock);
        assertEquals(HOT_SCHEDULE, s.scheduleFor("gemm_bf16_128x128x64"));
        Files.delete(file);                                // the profile goes away...
        assertEquals(HOT_SCHEDULE, s.scheduleFor("gemm_bf16_128x128x64"), "...the copy is still fresh");
        clock.now = clock.now.plus(Duration.ofMinutes(6)); // ...and later the copy is stale
        assertEquals(DEFAULT_SCHEDULE, s.scheduleFor("gemm_bf16_128x128x64"));
    }

    @Test
    void freshnessIsJudgedByTheOptimizersOwnClock() throws Exception {
        Clock frozenInThePast = Clock.fixed(Instant.now().minus(Duration.ofHours(1)), ZoneOffset.UTC);
        assertEquals(HOT_SCHEDULE, scheduler(profile(), frozenInThePast).scheduleFor("gemm_bf16_128x128x64"),
                "a copy taken after 'now' is not older than maxAge");
        Clock farFuture = Clock.fixed(Instant.now().plus(Duration.ofDays(1)), ZoneOffset.UTC);
        assertEquals(DEFAULT_SCHEDULE, scheduler(profile(), farFuture).scheduleFor("gemm_bf16_128x128x64"),
                "a clock far ahead sees every copy as stale");
    }

    private static final class MutableClock extends Clock {
        Instant now;

        MutableClock(Instant now) {
            this.now = now;
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }
    }
}
