package com.example.tuner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The plan options both optimizers share: each bad value is named (the optimizers then exit 2 with the usage). */
class PlanOptionsTest {
    private static PlanOptions parse(String... args) {
        return PlanOptions.from(OptionArgs.parse(args, PlanOptions.FLAGS, PlanOptions.VALUED));
    }

    private static String refused(String... args) {
        return assertThrows(IllegalArgumentException.class, () -> parse(args)).getMessage();
    }

    @Test
    void theDefaultIsTheHotSetAndEachModeIsChosenByName() {
        PlanOptions hot = parse("--hints", "a.hints");
        assertEquals(new PlanOptions(Path.of("a.hints"), PlanOptions.Mode.HOT, 0.9, 2, Duration.ofSeconds(600), 1, false), hot);
        assertEquals(PlanOptions.Mode.ALL, parse("--hints", "a", "--all").mode());
        assertEquals(PlanOptions.Mode.ALL, parse("--hints", "a", "--plan", "all", "--all").mode());
        assertEquals(PlanOptions.Mode.LARGEST, parse("--hints", "a", "--plan", "largest").mode());
        PlanOptions random = parse("--hints", "a", "--plan", "random", "--seed", "-3", "--budget-s", "240");
        assertEquals(-3, random.seed());
        assertEquals("random draw seed -3 (no hints) budget 240 s", random.describe());
    }

    @Test
    void eachBadValueIsNamed() {
        assertEquals("--hints is required", refused("--plan", "all"));
        assertEquals("--plan must be hot, all, largest or random", refused("--hints", "a", "--plan", "sideways"));
        assertEquals("--all and --plan largest disagree", refused("--hints", "a", "--plan", "largest", "--all"));
        assertEquals("--coverage 1.5 is not a number in [0, 1]", refused("--hints", "a", "--coverage", "1.5"));
        assertEquals("--coverage NaN is not a number in [0, 1]", refused("--hints", "a", "--coverage", "NaN"));
        assertEquals("--budget-s -1 is not an integer >= 0", refused("--hints", "a", "--budget-s", "-1"));
        assertEquals("--min-dispatches x\\x0ay is not an integer >= 0", refused("--hints", "a", "--min-dispatches", "x\ny"));
        assertEquals("--hints given twice", refused("--hints", "a", "--hints", "b"));
        assertEquals("--seed needs a value", refused("--hints", "a", "--seed"));
        assertEquals("unknown option --bogus", refused("--hints", "a", "--bogus"));
        assertEquals("unknown argument stray", refused("--hints", "a", "stray"));
        assertEquals("unknown option --x\\x1b[2J", assertThrows(IllegalArgumentException.class,
                () -> OptionArgs.parse(new String[] {"--x\u001b[2J"}, Set.of(), Set.of())).getMessage());
    }
}
