package dev.hintmap;

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
    /** Default longest region name, in UTF-8 bytes. */
    public static final int DEFAULT_MAX_NAME_BYTES = 64;
    /** Largest capacity a file may have. */
    public static final int MAX_CAPACITY = 1 << 26;
    /** Largest maximum name length. */
    public static final int MAX_NAME_BYTES_LIMIT = 1024;

    private static final int CAPACITY_SET = 1;
    private static final int THRESHOLD_SET = 2;
    private static final int MAX_NAME_SET = 4;
    private static final int READ_ONLY = 1;
    private static final int GROUP_SHARED = 2;
    private static final int FOLLOW_SYMLINKS = 4;
    private static final int ALLOW_FOREIGN_OWNER = 8;
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
     * Capacity 256, hot threshold 100 µs, names up to 64 bytes, read-write; the file private to
     * its owner (mode 0600), no symbolic link followed, no other user's file accepted.
     */
    public static HintStoreOptions defaults() {
        return DEFAULTS;
    }

    /**
     * Maximum number of regions; 0 disables recording (every query then returns its default).
     *
     * @throws IllegalArgumentException if outside {@code [0, MAX_CAPACITY]}
     */
    public HintStoreOptions capacity(int capacity) {
        if (capacity < 0 || capacity > MAX_CAPACITY) {
            throw new IllegalArgumentException("capacity " + capacity + " is outside [0, " + MAX_CAPACITY + "]");
        }
        return new HintStoreOptions(capacity, hotThresholdNs, maxNameBytes, flags, explicit | CAPACITY_SET);
    }

    /**
     * Mean kernel time at or above which a region is hot.
     *
     * @throws IllegalArgumentException if negative
     */
    public HintStoreOptions hotThresholdNs(long hotThresholdNs) {
        if (hotThresholdNs < 0) {
            throw new IllegalArgumentException("hotThresholdNs " + hotThresholdNs + " is negative");
        }
        return new HintStoreOptions(capacity, hotThresholdNs, maxNameBytes, flags, explicit | THRESHOLD_SET);
    }

    /**
     * Longest region name accepted, in UTF-8 bytes.
     *
     * @throws IllegalArgumentException if outside {@code [1, MAX_NAME_BYTES_LIMIT]}
     */
    public HintStoreOptions maxNameBytes(int maxNameBytes) {
        if (maxNameBytes < 1 || maxNameBytes > MAX_NAME_BYTES_LIMIT) {
            throw new IllegalArgumentException(
                    "maxNameBytes " + maxNameBytes + " is outside [1, " + MAX_NAME_BYTES_LIMIT + "]");
        }
        return new HintStoreOptions(capacity, hotThresholdNs, maxNameBytes, flags, explicit | MAX_NAME_SET);
    }

    /**
     * Opens an existing file read-only: the mapping is read-only, nothing is claimed in the file,
     * and {@code record} throws {@link IllegalStateException}. This is what an optimizer uses.
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
     */
    public HintStoreOptions groupShared(boolean groupShared) {
        return withFlag(GROUP_SHARED, groupShared);
    }

    /**
     * Follows a symbolic link at the final component of the path. By default a link there is
     * refused ({@link HintFileException.Problem#SYMLINK}), so that whoever can write the
     * directory cannot point this process at another file; links in the directories above are
     * always followed (the directory is trusted). Default false.
     */
    public HintStoreOptions followSymlinks(boolean followSymlinks) {
        return withFlag(FOLLOW_SYMLINKS, followSymlinks);
    }

    /**
     * Accepts a file owned by any user. By default a file whose owner is not this process's
     * effective user is refused ({@link HintFileException.Problem#FOREIGN_OWNER}), unless
     * {@link #groupShared(boolean)} accepts it: whoever owns the file can change the hints this
     * process acts on (never its correctness). Default false.
     */
    public HintStoreOptions allowForeignOwner(boolean allowForeignOwner) {
        return withFlag(ALLOW_FOREIGN_OWNER, allowForeignOwner);
    }

    private HintStoreOptions withFlag(int flag, boolean on) {
        return new HintStoreOptions(capacity, hotThresholdNs, maxNameBytes, on ? flags | flag : flags & ~flag, explicit);
    }

    public int capacity() {
        return capacity;
    }

    public long hotThresholdNs() {
        return hotThresholdNs;
    }

    public int maxNameBytes() {
        return maxNameBytes;
    }

    public boolean readOnly() {
        return (flags & READ_ONLY) != 0;
    }

    public boolean groupShared() {
        return (flags & GROUP_SHARED) != 0;
    }

    public boolean followSymlinks() {
        return (flags & FOLLOW_SYMLINKS) != 0;
    }

    public boolean allowForeignOwner() {
        return (flags & ALLOW_FOREIGN_OWNER) != 0;
    }

    /** Whether {@link #capacity(int)} was called on this value or one it was derived from. */
    public boolean isCapacitySet() {
        return (explicit & CAPACITY_SET) != 0;
    }

    /** Whether {@link #hotThresholdNs(long)} was called. */
    public boolean isHotThresholdSet() {
        return (explicit & THRESHOLD_SET) != 0;
    }

    /** Whether {@link #maxNameBytes(int)} was called. */
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
        return java.util.Objects.hash(capacity, hotThresholdNs, maxNameBytes, flags, explicit);
    }

    @Override
    public String toString() {
        return "HintStoreOptions[capacity=" + capacity + ", hotThresholdNs=" + hotThresholdNs
                + ", maxNameBytes=" + maxNameBytes + ", readOnly=" + readOnly() + ", groupShared=" + groupShared()
                + ", followSymlinks=" + followSymlinks() + ", allowForeignOwner=" + allowForeignOwner() + "]";
    }
}
