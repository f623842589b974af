package dev.hintmap.os;

import dev.hintmap.HintFileException;
import dev.hintmap.HintFileException.Problem;
import java.nio.file.Path;

/**
 * Whether the JVM lets this library make its libc downcalls ({@link PosixFiles}), found out once
 * before the first open. With {@code --illegal-native-access=deny} (the JDK's announced default)
 * and no {@code --enable-native-access}, the first downcall handle throws
 * {@link IllegalCallerException}; inside {@code PosixFiles}' static initialiser that would be an
 * {@link ExceptionInInitializerError}, an {@code Error} that escapes a user's {@code catch} and
 * leaves the class unusable for the life of the JVM. Probing here, outside any initialiser, turns it
 * into a {@link HintFileException} ({@link Problem#NATIVE_ACCESS}) that names the flag to add.
 */
public final class NativeAccess {
    /** null until probed; then whether downcalls are allowed (the answer cannot change in a JVM). */
    private static volatile Boolean allowed;

    private NativeAccess() {}

    public static void require(Path file) throws HintFileException {
        if (!SyscallNumbers.SUPPORTED) {
            throw new HintFileException(file, Problem.IO, null, "hintmap opens files through Linux system calls of"
                    + " x86-64 and AArch64; this JVM runs on " + SyscallNumbers.arch(), null);
        }
        if (!allowed()) {
            throw new HintFileException(file, Problem.NATIVE_ACCESS, null,
                    "the JVM denies hintmap native access (it opens and checks files through libc): run it with "
                            + (NativeAccess.class.getModule().isNamed()
                                    ? "--enable-native-access=dev.hintmap"
                                    : "--enable-native-access=ALL-UNNAMED"),
                    null);
        }
    }

    /** Whether the downcalls are allowed (probed once); never throws. */
    public static boolean allowed() {
        Boolean known = allowed;
        if (known == null) {
            known = probe();
            allowed = known;
        }
        return known;
    }

    /**
     * Links {@link PosixFiles}' one downcall, which throws when access is denied: the probe costs
     * nothing more than the first open needs anyway (the JDK keeps the linked handle).
     */
    private static boolean probe() {
        if (NativeAccess.class.getModule().isNativeAccessEnabled()) {
            return true;
        }
        try {
            PosixFiles.linkSyscall();
            return true; // allowed with a warning (--illegal-native-access=warn or allow)
        } catch (IllegalCallerException denied) {
            return false;
        }
    }
}
