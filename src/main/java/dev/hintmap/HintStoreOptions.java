package dev.hintmap;

import dev.hintmap.format.FileGeometry;

import java.util.Objects;

/**
 * Options for creating or opening a {@link HintStore}. Immutable: start from {@link #defaults()}
 * and derive values with the withers, each of which returns a new instance.
 *
 * <p>When an existing file is opened, the file's own layout wins. Only the options set
 * explicitly through a wither are compared with it, and a difference is a
 * {@link HintFileException} with {@link HintFileException.Problem#OPTIONS_MISMATCH}.
 */
public final class HintStoreOptions {
    /** Default number of regions a store holds. */
    public static final int DEFAULT_CAPACITY = 256;
    /** Default hot threshold: 100 µs of mean kernel time. */
    public static final long DEFAULT_HOT_THRESHOLD_NS = 100_000;
    /**
     * Default longest region name stored as it is, in UTF-8 bytes: PyTorch, cuBLAS and CUTLASS kernel
     * names run 100–400 bytes, so most fit whole; a longer one is stored in its shortened form
     * (FORMAT.md §1.1). A slot is {@code 128 + roundup(maxNameBytes, 64)} bytes: 384 at this default.
     */
    public static final int DEFAULT_MAX_NAME_BYTES = 256;
    /** Largest capacity a file may have: 2^26 regions (FORMAT.md §2). */
    public static final int MAX_CAPACITY = FileGeometry.MAX_CAPACITY;
    /** Largest maximum name length: 1024 bytes (FORMAT.md §2). */
    public static final int MAX_NAME_BYTES_LIMIT = FileGeometry.MAX_NAME_BYTES_LIMIT;
    /**
     * Smallest maximum name length: 33, a stored form's {@code '~'} and 32 hex digits with no prefix
     * (FORMAT.md §1.1, §2), so that two long names never share a region for want of room.
     */
    public static final int MIN_NAME_BYTES = FileGeometry.MIN_MAX_NAME_BYTES;

    private static final int CAPACITY_SET = 1;
    private static final int THRESHOLD_SET = 2;
    private static final int MAX_NAME_SET = 4;
    private static final int READ_ONLY = 1;
    private static final int GROUP_SHARED = 2;
    private static final int FOLLOW_SYMLINKS = 4;
    private static final int ALLOW_FOREIGN_OWNER = 8;
    private static final int REJECT_LONG_NAMES = 16;
    private static final HintStoreOptions DEFAULTS =
            new HintStoreOptions(DEFAULT_CAPACITY, DEFAULT_HOT_THRESHOLD_NS, DEFAULT_MAX_NAME_BYTES, 0, 0);

    private final int capacity;
    private final long hotThresholdNs;
    private final int maxNameBytes;
    private final int flags;
    private final int explicit;

    private HintStoreOptions(int capacity, long hotThresholdNs, int maxNameBytes, int flags, int explicit) {
        this.capacity = capacity;
        this.hotThresholdNs = hotThresholdNs;
        this.maxNameBytes = maxNameBytes;
        this.flags = flags;
        this.explicit = explicit;
    }

    /**
     * Capacity 256, hot threshold 100 µs, names stored whole up to 256 bytes, read-write; the file private to
     * its owner (mode 0600), no symbolic link followed, no other user's file accepted. Nothing is
     * set explicitly, so an existing file of any layout opens with these options.
     *
     * @return the default options (one shared instance)
     */
    public static HintStoreOptions defaults() {
        return DEFAULTS;
    }

    /**
     * Maximum number of regions; 0 disables recording (records are checked and dropped, and every
     * query answers absent: false, 0, empty).
     * The file grows with it: one slot of {@code 128 + roundup(maxNameBytes, 64)} bytes per
     * region, plus the index (FORMAT.md §2). Set explicitly: an existing file must have this capacity.
     *
     * @param capacity the number of regions, in {@code [0, MAX_CAPACITY]}
     * @return a copy of these options with this capacity, marked as set
     * @throws IllegalArgumentException if outside {@code [0, MAX_CAPACITY]}
     */
    public HintStoreOptions capacity(int capacity) {
        if (!FileGeometry.isCapacity(capacity)) {
            throw new IllegalArgumentException("capacity " + capacity + " is outside [0, " + MAX_CAPACITY + "]");
        }
        return new HintStoreOptions(capacity, hotThresholdNs, maxNameBytes, flags, explicit | CAPACITY_SET);
    }

    /**
     * Mean kernel time at or above which a region is hot. For a writer it is the file's: a file
     * it creates gets it, and set explicitly, an existing file must have it. For a
     * {@linkplain #readOnly(boolean) read-only} store, which never creates a file, it is the
     * reader's own: the store answers "hot" by it whatever the file's threshold is
     * ({@link HintStore#hotThresholdNs()}); unset, the file's.
     *
     * @param hotThresholdNs the threshold in ns, {@code >= 0} (0: every present region is hot)
     * @return a copy of these options with this threshold, marked as set
     * @throws IllegalArgumentException if negative
     */
    public HintStoreOptions hotThresholdNs(long hotThresholdNs) {
        if (hotThresholdNs < 0) {
            throw new IllegalArgumentException("hotThresholdNs " + hotThresholdNs + " is negative");
        }
        return new HintStoreOptions(capacity, hotThresholdNs, maxNameBytes, flags, explicit | THRESHOLD_SET);
    }

    /**
     * Longest region name the file stores as it is, in UTF-8 bytes. A longer name is stored, and
     * looked up, in its shortened form (FORMAT.md §1.1; {@link HintStore#storedName(String)}):
     * a prefix, {@code '~'} and 32 hex digits of the SHA-256 of the whole name. Pick a limit above
     * the names a program has, so that they read whole in {@code dump} and {@code top}: PyTorch,
     * cuBLAS and CUTLASS kernel names run 100–400 bytes. Set explicitly: an existing file must
     * have this limit.
     *
     * @param maxNameBytes the limit in UTF-8 bytes, in {@code [MIN_NAME_BYTES, MAX_NAME_BYTES_LIMIT]}
     *     ({@code [33, 1024]})
     * @return a copy of these options with this limit, marked as set
     * @throws IllegalArgumentException if outside {@code [33, 1024]}: below 33 a shortened name
     *     could not keep its whole digest
     */
    public HintStoreOptions maxNameBytes(int maxNameBytes) {
        if (!FileGeometry.isNameLimit(maxNameBytes)) {
            throw new IllegalArgumentException("maxNameBytes " + maxNameBytes + " is outside [" + MIN_NAME_BYTES + ", "
                    + MAX_NAME_BYTES_LIMIT + "]: a name over the limit is stored as a prefix, '~' and 32 hex digits"
                    + " (FORMAT.md §1.1), which need at least " + MIN_NAME_BYTES + " bytes");
        }
        return new HintStoreOptions(capacity, hotThresholdNs, maxNameBytes, flags, explicit | MAX_NAME_SET);
    }

    /**
     * Opens an existing file read-only: the mapping is read-only, nothing is claimed in the file,
     * every read answers, and {@code record}, {@code add}, {@code decay} (and a {@link Region}'s
     * {@code record}) throw {@link IllegalStateException}. This is what an optimizer uses.
     * A missing file is then {@link HintFileException.Problem#MISSING}, never created. Default
     * false.
     *
     * @param readOnly true to open read-only, false to open (or create) for writing
     * @return a copy of these options with this access mode
     */
    public HintStoreOptions readOnly(boolean readOnly) {
        return withFlag(READ_ONLY, readOnly);
    }

    /**
     * Shares the file with this process's group, for a driver and an optimizer that run as
     * different users in one group. A file this store creates gets mode 0660 instead of 0600
     * (exactly, whatever the umask). Opening accepts a file owned by another user when the file's
     * group is one of this process's groups and the file is not writable by others (mode
     * {@code o+w} clear); other users' files are refused unless {@link #allowForeignOwner(boolean)}.
     * Default false. See {@code docs/SECURITY.md}.
     *
     * @param groupShared true to share the file with this process's group
     * @return a copy of these options with this sharing
     */
    public HintStoreOptions groupShared(boolean groupShared) {
        return withFlag(GROUP_SHARED, groupShared);
    }

    /**
     * Follows a symbolic link at the final component of the path. By default a link there is
     * refused ({@link HintFileException.Problem#SYMLINK}), so that whoever can write the
     * directory cannot point this process at another file; links in the directories above are
     * always followed (the directory is trusted). Default false.
     *
     * @param followSymlinks true to follow a symbolic link at the final component
     * @return a copy of these options with this choice
     */
    public HintStoreOptions followSymlinks(boolean followSymlinks) {
        return withFlag(FOLLOW_SYMLINKS, followSymlinks);
    }

    /**
     * Accepts a file owned by any user. By default a file whose owner is not this process's
     * effective user is refused ({@link HintFileException.Problem#FOREIGN_OWNER}), unless
     * {@link #groupShared(boolean)} accepts it: whoever owns the file can change the hints this
     * process acts on (never its correctness). Default false.
     *
     * @param allowForeignOwner true to accept a file whatever its owner
     * @return a copy of these options with this choice
     */
    public HintStoreOptions allowForeignOwner(boolean allowForeignOwner) {
        return withFlag(ALLOW_FOREIGN_OWNER, allowForeignOwner);
    }

    /**
     * Refuses a region name longer than the file's {@code max_name_bytes} with
     * {@link IllegalArgumentException}, instead of storing and looking it up in its shortened form
     * (the default, FORMAT.md §1.1): for a caller that wants to know that its names do not fit. Not
     * a property of the file: each process chooses. Default false.
     *
     * @param rejectLongNames true to refuse names over the limit
     * @return a copy of these options with this choice
     */
    public HintStoreOptions rejectLongNames(boolean rejectLongNames) {
        return withFlag(REJECT_LONG_NAMES, rejectLongNames);
    }

    private HintStoreOptions withFlag(int flag, boolean on) {
        return new HintStoreOptions(capacity, hotThresholdNs, maxNameBytes, on ? flags | flag : flags & ~flag, explicit);
    }

    /**
     * The capacity a file created with these options gets.
     *
     * @return the number of regions, in {@code [0, MAX_CAPACITY]}: {@link #DEFAULT_CAPACITY}
     *     unless set with {@link #capacity(int)}. An existing file keeps its own
     *     ({@link HintStore#capacity()})
     */
    public int capacity() {
        return capacity;
    }

    /**
     * The hot threshold a file created with these options gets (and, set explicitly on read-only
     * options, the one the store answers by).
     *
     * @return the threshold in ns, {@code >= 0}: {@link #DEFAULT_HOT_THRESHOLD_NS} unless set with
     *     {@link #hotThresholdNs(long)}. An existing file keeps its own
     *     ({@link HintFileInfo#hotThresholdNs()})
     */
    public long hotThresholdNs() {
        return hotThresholdNs;
    }

    /**
     * The longest name, in UTF-8 bytes, that a file created with these options stores as it is
     * (a longer one is stored in its shortened form, FORMAT.md §1.1, unless
     * {@link #rejectLongNames()}).
     *
     * @return the limit, in {@code [MIN_NAME_BYTES, MAX_NAME_BYTES_LIMIT]}: {@link #DEFAULT_MAX_NAME_BYTES}
     *     unless set with {@link #maxNameBytes(int)}. An existing file keeps its own
     *     ({@link HintStore#maxNameBytes()})
     */
    public int maxNameBytes() {
        return maxNameBytes;
    }

    /**
     * Whether a store opened with these options is read-only ({@link #readOnly(boolean)}).
     *
     * @return true for read-only; false (the default) for read-write
     */
    public boolean readOnly() {
        return (flags & READ_ONLY) != 0;
    }

    /**
     * Whether the file is shared with this process's group ({@link #groupShared(boolean)}).
     *
     * @return true for mode 0660 and group-owned files accepted; false (the default) for a file
     *     private to its owner
     */
    public boolean groupShared() {
        return (flags & GROUP_SHARED) != 0;
    }

    /**
     * Whether a symbolic link at the final path component is followed
     * ({@link #followSymlinks(boolean)}).
     *
     * @return true to follow it; false (the default) to refuse it
     */
    public boolean followSymlinks() {
        return (flags & FOLLOW_SYMLINKS) != 0;
    }

    /**
     * Whether a file owned by any user is accepted ({@link #allowForeignOwner(boolean)}).
     *
     * @return true to accept it; false (the default) to refuse another user's file unless
     *     {@link #groupShared()} accepts it
     */
    public boolean allowForeignOwner() {
        return (flags & ALLOW_FOREIGN_OWNER) != 0;
    }

    /**
     * Whether names over the file's limit are refused ({@link #rejectLongNames(boolean)}).
     *
     * @return true to refuse them; false (the default) to store them in their shortened form
     */
    public boolean rejectLongNames() {
        return (flags & REJECT_LONG_NAMES) != 0;
    }

    /**
     * Whether {@link #capacity(int)} was called on this value or one it was derived from, so that
     * opening an existing file of another capacity fails ({@code OPTIONS_MISMATCH}).
     *
     * @return true when the capacity was set explicitly
     */
    public boolean isCapacitySet() {
        return (explicit & CAPACITY_SET) != 0;
    }

    /**
     * Whether {@link #hotThresholdNs(long)} was called on this value or one it was derived from,
     * so that opening an existing file of another threshold fails ({@code OPTIONS_MISMATCH}).
     *
     * @return true when the hot threshold was set explicitly
     */
    public boolean isHotThresholdSet() {
        return (explicit & THRESHOLD_SET) != 0;
    }

    /**
     * Whether {@link #maxNameBytes(int)} was called on this value or one it was derived from, so
     * that opening an existing file of another limit fails ({@code OPTIONS_MISMATCH}).
     *
     * @return true when the name limit was set explicitly
     */
    public boolean isMaxNameBytesSet() {
        return (explicit & MAX_NAME_SET) != 0;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof HintStoreOptions other && capacity == other.capacity
                && hotThresholdNs == other.hotThresholdNs && maxNameBytes == other.maxNameBytes
                && flags == other.flags && explicit == other.explicit;
    }

    @Override
    public int hashCode() {
        return Objects.hash(capacity, hotThresholdNs, maxNameBytes, flags, explicit);
    }

    @Override
    public String toString() {
        return "HintStoreOptions[capacity=" + capacity + ", hotThresholdNs=" + hotThresholdNs
                + ", maxNameBytes=" + maxNameBytes + ", readOnly=" + readOnly() + ", groupShared=" + groupShared()
                + ", followSymlinks=" + followSymlinks() + ", allowForeignOwner=" + allowForeignOwner()
                + ", rejectLongNames=" + rejectLongNames() + "]";
    }
}
