package dev.hintmap.cli;

import java.util.concurrent.locks.LockSupport;

/**
 * A {@code hintmap} process that stops in the middle of writing its output, for a test to
 * interrupt it there: {@code HeldCommand ARGS...} runs {@code hintmap ARGS...} as the launcher
 * does ({@link HintmapCli#main}), except that when the temporary file of its output is half
 * written ({@link TestSeams#halfWritten}) it prints {@code half written TMP} on standard output and
 * waits there until it is signalled or killed. So the signal lands mid-write every time, with no
 * timing involved.
 */
public final class HeldCommand {
    /** The line a test waits for; the temporary's path follows it. */
    static final String HELD = "half written ";

    private HeldCommand() {}

    public static void main(String[] args) {
        System.setProperty(TestSeams.PROPERTY, "true"); // a child JVM: before any class reads it
        TestSeams.halfWritten = tmp -> {
            System.out.println(HELD + tmp);
            System.out.flush();
            while (true) {
                LockSupport.park(); // until a signal ends the JVM
            }
        };
        HintmapCli.main(args);
    }
}
