package dev.hintmap.store;

import dev.hintmap.HintFileException;
import dev.hintmap.HintFileException.Problem;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.format.FileGeometry;
import dev.hintmap.format.Header;
import dev.hintmap.format.Layouts;
import dev.hintmap.os.MappedFileSighting;
import dev.hintmap.os.NativeAccess;
import dev.hintmap.os.NewFiles;
import dev.hintmap.os.PosixAcl;
import dev.hintmap.os.PosixFiles;
import dev.hintmap.os.PosixFiles.PosixException;
import dev.hintmap.os.ProcessIdentity;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Gets a hint file mapped, FORMAT.md §5: creates it when absent (initialised under a temporary
 * name, allocated, then linked into place), or opens the existing one and checks it on the
 * descriptor actually opened (file type, the owner rule, unallocated ranges, the header, the
 * caller's options) before mapping it and claiming a writer entry. Every failure leaves as a
 * {@link HintFileException} naming the file and the problem, with nothing left open.
 *
 * <p>Also the one place of the open rules for the other files a tool reads ({@link #openForReading}:
 * a version-1 or version-2 file, a JSON profile) and of exclusive creation ({@link #createNew}).
 *
 * <p>Separate from {@link MappedStore}, which owns the mapping from then on: this class holds
 * no state, and nothing here runs once a store exists.
 */
public final class HintFileOpener {
    private HintFileOpener() {}

    // ------------------------------------------------------------------ opening (§5 steps 0–6)

    /**
     * Opens {@code file}, creating it when absent (unless read-only): FORMAT.md §5. Every check
     * is made on the descriptor actually opened, never on the path a second time.
     */
    public static MappedStore open(Path file, HintStoreOptions options, StoreSettings settings) throws IOException {
        NativeAccess.require(file);
        boolean created = false;
        while (true) {
            int fd;
            try {
                fd = PosixFiles.open(file, (options.readOnly() ? PosixFiles.O_RDONLY : PosixFiles.O_RDWR)
                        | PosixFiles.O_NONBLOCK | PosixFiles.O_CLOEXEC
                        | (options.followSymlinks() ? 0 : PosixFiles.O_NOFOLLOW), 0);
            } catch (PosixException e) {
                if (e.errno == PosixFiles.ENOENT && !options.readOnly() && !created) {
                    int ours = createFile(file, options, false, null);
                    PosixFiles.close(ours);
                    created = true; // published by us or by a racing creator: open that file
                    continue;
                }
                throw openFailure(file, e, options);
            }
            return openDescriptor(file, fd, options, settings);
        }
    }

    /**
     * Creates a new hint file at {@code file} and opens it for writing, never an existing one:
     * creation as in {@link #open} (initialised under a temporary name, then linked into place),
     * but a file published at the path first, or anything else there, a symbolic link included,
     * is a {@link FileAlreadyExistsException}, and the store maps the very file this call
     * created (its descriptor, not the path again).
     *
     * @param like null, or a file whose owner, group and permission bits the new file takes
     *     (set on its descriptor before it is linked into place): what an in-place conversion
     *     keeps of the file it replaces; read as {@code options} open a file (a symbolic link
     *     only with {@code followSymlinks}), and it must be a regular file
     */
    public static MappedStore createNew(Path file, HintStoreOptions options, StoreSettings settings, Path like)
            throws IOException {
        NativeAccess.require(file);
        HintStoreOptions writable = options.readOnly(false);
        PosixFiles.Stat likeStat = null;
        if (like != null) {
            try {
                likeStat = PosixFiles.stat(like, options.followSymlinks());
            } catch (PosixException e) {
                throw openFailure(like, e, options);
            }
            if (!likeStat.isRegularFile()) {
                throw notRegular(like, likeStat);
            }
        }
        int fd = createFile(file, writable, true, likeStat);
        // Ours, whoever owns it now (like): the owner rule concerns files others may have put there.
        return openDescriptor(file, fd, writable.allowForeignOwner(true), settings);
    }

    /** A file that a command only reads, opened and checked by {@link #openForReading}: close it. */
    public static final class Opened implements AutoCloseable {
        final int fd;
        final PosixFiles.Stat stat;

        private Opened(int fd, PosixFiles.Stat stat) {
            this.fd = fd;
            this.stat = stat;
        }

        /** A channel on the file opened (a descriptor of its own, which the caller closes). */
        public FileChannel channel() throws IOException {
            return openDescriptorChannel(fd, true);
        }

        /** The file's size when it was checked. */
        public long size() {
            return stat.size();
        }

        @Override
        public void close() {
            PosixFiles.close(fd);
        }
    }

    /**
     * Opens a file that a command only reads — a hint file of format version 1 or 2, a JSON profile —
     * under the rules of every hint file (FORMAT.md §5 step 0, docs/SECURITY.md): {@code O_RDONLY|O_NONBLOCK}
     * (a FIFO never blocks the open), {@code O_NOFOLLOW} unless {@code options} follow symbolic
     * links, and on the descriptor: a regular file, the owner rule, and, when {@code mapped}, no
     * unallocated range (§5 step 4a: a read through a mapping of a hole faults on a full
     * filesystem, as a read-only open of a hint file refuses it).
     *
     * @throws HintFileException naming the file and the problem ({@code MISSING}, {@code SYMLINK},
     *     {@code NOT_A_HINT_FILE} for anything but a regular file, {@code FOREIGN_OWNER},
     *     {@code SPARSE}, {@code IO}); nothing is left open
     */
    public static Opened openForReading(Path file, HintStoreOptions options, boolean mapped) throws IOException {
        NativeAccess.require(file);
        int fd;
        try {
            fd = PosixFiles.open(file, PosixFiles.O_RDONLY | PosixFiles.O_NONBLOCK | PosixFiles.O_CLOEXEC
                    | (options.followSymlinks() ? 0 : PosixFiles.O_NOFOLLOW), 0);
        } catch (PosixException e) {
            throw openFailure(file, e, options);
        }
        try {
            PosixFiles.Stat stat = checkOpened(file, fd, options);
            if (mapped) {
                allocateHoles(file, fd, stat, stat.size(), true);
            }
            return new Opened(fd, stat);
        } catch (PosixException e) {
            PosixFiles.close(fd);
            throw new HintFileException(file, Problem.IO, null, "cannot open: " + e.getMessage(), e);
        } catch (IOException | RuntimeException | Error e) {
            PosixFiles.close(fd);
            throw e;
        }
    }

    /**
     * §5 step 0 on the descriptor actually opened: a regular file (a FIFO or a device opened
     * {@code O_NONBLOCK} is refused here, before any read could block), and the owner rule.
     */
    private static PosixFiles.Stat checkOpened(Path file, int fd, HintStoreOptions options)
            throws PosixException, HintFileException {
        PosixFiles.Stat stat = PosixFiles.fstat(fd);
        if (!stat.isRegularFile()) {
            throw notRegular(file, stat);
        }
        String refusal = ownerRefusal(stat, Identity.current(), options, () -> PosixFiles.fgetxattr(fd, PosixAcl.ACCESS_XATTR));
        if (refusal != null) {
            throw new HintFileException(file, Problem.FOREIGN_OWNER, null, "file is " + refusal);
        }
        return stat;
    }

    private static HintFileException notRegular(Path file, PosixFiles.Stat stat) {
        return new HintFileException(file, Problem.NOT_A_HINT_FILE, null, "not a hint file: not a regular file but "
                + stat.kind() + " (mode " + String.format("0%o", stat.mode()) + ")");
    }

    /**
     * What a failed {@code open(2)} of the path means to the caller, as the problem it can act
     * on: a symbolic link refused (§5 step 0), a directory, a missing file (caused by the JDK's
     * own exception, which callers test for), no space, or any other I/O error.
     */
    private static HintFileException openFailure(Path file, PosixException e, HintStoreOptions options) {
        return switch (e.errno) {
            case PosixFiles.ELOOP -> options.followSymlinks()
                    ? new HintFileException(file, Problem.IO, null, "cannot open hint file: too many symbolic links (" + e.getMessage() + ")", e)
                    : new HintFileException(file, Problem.SYMLINK, null, "the final path component is a symbolic link,"
                            + " which is refused (open with followSymlinks(true) to follow it)", e);
            case PosixFiles.EISDIR -> new HintFileException(file, Problem.NOT_A_HINT_FILE, null,
                    "not a hint file: not a regular file but a directory", e); // as notRegular words it
            case PosixFiles.ENOENT -> new HintFileException(file, Problem.MISSING, null, "no such hint file", missing(file, e));
            case PosixFiles.ENOSPC, PosixFiles.EDQUOT, PosixFiles.EFBIG -> noSpace(file, e.getMessage(), e);
            default -> new HintFileException(file, Problem.IO, null, "cannot open hint file: " + e.getMessage(), e);
        };
    }

    private static HintFileException noSpace(Path file, String what, Throwable cause) {
        return new HintFileException(file, Problem.NO_SPACE, null,
                "no space to create the hint file (" + what + "): nothing was created", cause);
    }

    /** The JDK's own exception for a missing file (what callers test for), caused by the system call's error. */
    private static NoSuchFileException missing(Path file, Exception cause) {
        NoSuchFileException e = new NoSuchFileException(file.toString(), null, cause.getMessage());
        e.initCause(cause);
        return e;
    }

    /** This process's effective user, group and supplementary groups. */
    record Identity(int uid, int gid, int[] groups) {
        static Identity current() throws PosixException {
            return new Identity(PosixFiles.geteuid(), PosixFiles.getegid(), PosixFiles.getgroups());
        }

        boolean inGroup(int group) {
            if (group == gid) {
                return true;
            }
            for (int g : groups) {
                if (g == group) {
                    return true;
                }
            }
            return false;
        }
    }

    /** Reads the file's access ACL ({@link PosixAcl}), only when the group-shared rule needs it. */
    @FunctionalInterface
    interface AccessAcl {
        byte[] read() throws PosixException;
    }

    /**
     * The ownership rule of FORMAT.md §5 step 0: null when a file with these attributes may be
     * opened by {@code self} with {@code options}, else why not.
     */
    static String ownerRefusal(PosixFiles.Stat stat, Identity self, HintStoreOptions options, AccessAcl acl)
            throws PosixException {
        if (stat.uid() == self.uid() || options.allowForeignOwner()) {
            return null;
        }
        String owner = "owned by uid " + Integer.toUnsignedString(stat.uid()) + " (this process runs as uid "
                + Integer.toUnsignedString(self.uid()) + ")";
        if (!options.groupShared()) {
            return owner + "; open it with groupShared(true) to share it within a group, or allowForeignOwner(true)";
        }
        if (!self.inGroup(stat.gid())) {
            return owner + " and its group gid " + Integer.toUnsignedString(stat.gid()) + " is not one of this process's groups";
        }
        if ((stat.mode() & PosixFiles.S_IWOTH) != 0) {
            return owner + " and writable by others (mode " + stat.modeOctal() + "; expected o+w clear)";
        }
        String aclWriter = PosixAcl.writerBeyondOwnerAndGroup(acl.read());
        if (aclWriter != null) {
            return owner + " and its access ACL lets " + aclWriter + " write it (expected no named user or group"
                    + " with write permission: remove the entry with setfacl -x)";
        }
        return null;
    }

    /** §5 opening steps 0–6 on the descriptor {@code fd}, which this takes over (kept, or closed on failure). */
    private static MappedStore openDescriptor(Path file, int fd, HintStoreOptions options, StoreSettings settings)
            throws IOException {
        boolean readOnly = options.readOnly();
        Arena dataArena = null;
        MemorySegment controlPage = null;
        long openedBytes = Long.MAX_VALUE;
        Runnable claimedToken = null;
        try {
            PosixFiles.Stat stat = checkOpened(file, fd, options);
            openedBytes = stat.size();
            try (FileChannel channel = openDescriptorChannel(fd, readOnly)) {
                long size = stat.size();
                Header header;
                try (Arena scratch = Arena.ofConfined()) {
                    MemorySegment h = scratch.allocate(Layouts.HEADER.byteSize(), Layouts.PAGE);
                    ByteBuffer buffer = h.asByteBuffer();
                    while (buffer.hasRemaining() && channel.read(buffer, buffer.position()) >= 0) {
                        // read the header page fully, or up to the end of a short file
                    }
                    header = Header.validate(file, h.asSlice(0, buffer.position()), size);
                }
                checkOptions(file, header, options);
                FileGeometry geometry = header.geometry();
                allocateHoles(file, fd, stat, geometry.fileBytes(), readOnly);
                dataArena = Arena.ofShared();
                MemorySegment data = channel.map(readOnly ? FileChannel.MapMode.READ_ONLY : FileChannel.MapMode.READ_WRITE,
                        0, geometry.fileBytes(), dataArena);
                PosixFiles.adviseHugePages(data);
                Memory memory = new Memory(data);
                WriterTable writers = new WriterTable(memory, geometry, new MappedFileSighting(data.address()));
                if (readOnly) {
                    return new MappedStore(file, dataArena, data, null, null, header,
                            new StoreEngine(memory, geometry, readerThreshold(header, options), options.rejectLongNames(), null),
                            writers, true, fd, stat, options.followSymlinks());
                }
                long token = ProcessIdentity.currentToken();
                WriterTable.Claim claim = writers.claim(token);
                if (claim == null) {
                    throw new HintFileException(file, Problem.WRITER_TABLE_FULL, "writer_entries",
                            "all " + geometry.writerEntries() + " writer entries are held by live processes");
                }
                claimedToken = () -> Memory.releaseLong(memory.segment, writers.entryOffset(claim.index()) + Layouts.WRITER_TOKEN, 0L);
                long entryOffset = writers.entryOffset(claim.index());
                controlPage = PosixFiles.mapPage(fd, entryOffset, Layouts.WRITER_ENTRY.byteSize());
                MemorySegment control = controlPage.asSlice(entryOffset % Layouts.PAGE, Layouts.WRITER_ENTRY.byteSize());
                return new MappedStore(file, dataArena, data, controlPage, control, header,
                        MappedStore.writerEngine(memory, header, options.rejectLongNames(), writers, claim, token, settings),
                        writers, false, fd, stat,
                        options.followSymlinks());
            }
        } catch (IOException | PosixException | RuntimeException | Error e) {
            Throwable failure = switch (e) {
                case HintFileException h -> h;
                case PosixException p -> new HintFileException(file, Problem.IO, null, "cannot open hint file: " + p.getMessage(), p);
                case IOException io -> new HintFileException(file, Problem.IO, null, "cannot map hint file: " + io, io);
                case InternalError fault -> faultWhileOpening(file, fd, openedBytes, fault); // asks fd: before it is closed
                default -> e; // runtime exceptions and other errors (a stack overflow) propagate as they are
            };
            if (claimedToken != null) {
                try {
                    claimedToken.run(); // no thread has this store yet: give the entry back now
                } catch (InternalError truncated) {
                    // the page went with a truncated file: the entry reads as dead to the next writer
                }
            }
            if (controlPage != null) {
                PosixFiles.unmap(controlPage);
            }
            if (dataArena != null) {
                dataArena.close();
            }
            PosixFiles.close(fd);
            if (failure instanceof HintFileException h) {
                throw h;
            }
            if (failure instanceof Error err) {
                throw err;
            }
            throw (RuntimeException) failure;
        }
    }

    /**
     * What a fault while opening means: the file shrank between the checks and the claim
     * (truncated), or it kept its size and a page of it could not be allocated or read — a
     * sparse or hole-punched file on a full filesystem, or an I/O error.
     */
    private static HintFileException faultWhileOpening(Path file, int fd, long openedBytes, InternalError fault) {
        try {
            long size = PosixFiles.fstat(fd).size();
            if (size < openedBytes) {
                return new HintFileException(file, Problem.TRUNCATED, "file_bytes",
                        "file was truncated to " + size + " bytes while it was being opened", fault);
            }
        } catch (PosixException e) {
            fault.addSuppressed(e);
        }
        return new HintFileException(file, Problem.IO, null, "cannot open hint file: an access to its mapping faulted"
                + " although the file kept its size (a page that could not be allocated on a full filesystem,"
                + " or an I/O error): " + fault.getMessage(), fault);
    }

    /**
     * FORMAT.md §5 opening step 4a: a file with unallocated ranges (a sparse copy made by
     * {@code cp --sparse=always}, {@code rsync -S}, {@code tar -S}; a punched hole) passes every
     * check, but on a full filesystem the first write to such a page — or, on tmpfs, even a read
     * — raises {@code SIGBUS}, which kills a C process and the JVM's interpreter inside a CAS. A
     * writer therefore allocates the whole file before mapping it ({@code posix_fallocate}, which
     * changes nothing in allocated ranges); a reader cannot allocate and refuses the file.
     */
    private static void allocateHoles(Path file, int fd, PosixFiles.Stat stat, long fileBytes, boolean readOnly)
            throws HintFileException {
        long hole = PosixFiles.firstHole(fd);
        if (hole < 0 || hole >= fileBytes) {
            return; // no hole, or a filesystem that does not report holes
        }
        if (readOnly && stat.allocatedBytes() >= fileBytes) {
            // SEEK_HOLE's "hole" is a range allocated and never written (ext4 and tmpfs report those
            // too, as every file that creation allocated has): the blocks are there. Only readers
            // need this test; a writer just allocates, a no-op on allocated ranges, because the
            // block count also counts metadata blocks that could hide a real hole.
            return;
        }
        if (readOnly) {
            throw new HintFileException(file, Problem.SPARSE, null, "the file has unallocated ranges (the first at byte "
                    + hole + "; a sparse copy?), which a read-only open cannot allocate and a full filesystem"
                    + " cannot back: open it once for writing, which allocates them, or copy it without holes (cp --sparse=never)");
        }
        int error = PosixFiles.fallocateInPlace(fd, fileBytes);
        if (error == PosixFiles.ENOSPC || error == PosixFiles.EDQUOT || error == PosixFiles.EFBIG) {
            throw new HintFileException(file, Problem.NO_SPACE, null, "the file has unallocated ranges (the first at byte "
                    + hole + "; a sparse copy?) and the filesystem has no room to allocate them ("
                    + PosixFiles.errnoName(error) + "): nothing was changed; free space, or copy the file"
                    + " without holes (cp --sparse=never)");
        }
        if (error != 0 && error != PosixFiles.EOPNOTSUPP && error != PosixFiles.EINVAL) {
            throw new HintFileException(file, Problem.IO, null,
                    "cannot allocate the file's unallocated ranges: " + PosixFiles.errnoName(error));
        }
        // EOPNOTSUPP/EINVAL: this filesystem cannot allocate; the sparse caveat of FORMAT.md §10 applies
    }

    /**
     * A channel on the open file {@code fd} without resolving the path again: {@code /proc/self/fd/N}
     * is a link to the very file the descriptor has open, whatever is at the path now.
     */
    private static FileChannel openDescriptorChannel(int fd, boolean readOnly) throws IOException {
        Path self = Path.of("/proc/self/fd", Integer.toString(fd));
        return readOnly ? FileChannel.open(self, StandardOpenOption.READ)
                : FileChannel.open(self, StandardOpenOption.READ, StandardOpenOption.WRITE);
    }

    // ------------------------------------------------------------------ creation (§5 steps 1–5)

    /** The header of a new store made with {@code options}: a created file's, or an anonymous store's. */
    static Header headerFor(HintStoreOptions options) {
        return new Header(new FileGeometry(options.capacity(), options.maxNameBytes()),
                options.hotThresholdNs(), System.currentTimeMillis());
    }

    /**
     * Creation, FORMAT.md §5 steps 1–5: the file is initialised completely under a temporary
     * name and then linked into place, so no process ever sees it half-written at {@code file}.
     * Losing the race to another creator is not an error for {@link #open}, which then opens
     * that file; for {@link #createNew} ({@code exclusive}) it is a {@link FileAlreadyExistsException}.
     *
     * @param like null, or the attributes whose owner, group and permission bits the file takes
     * @return the descriptor of the file created (read-write; the caller closes it), published at
     *     {@code file} unless another creator published first ({@code exclusive} false)
     */
    private static int createFile(Path file, HintStoreOptions options, boolean exclusive, PosixFiles.Stat like) throws IOException {
        Header header = headerFor(options);
        long fileBytes = header.geometry().fileBytes();
        String name = file.getFileName().toString();
        removeStrayTemporaries(file, name);
        Path tmp = file.resolveSibling(name + "." + ProcessHandle.current().pid() + "." + NewFiles.unpredictable() + ".tmp");
        int fd;
        try {
            fd = NewFiles.createExclusive(tmp, NewFiles.mode(options.groupShared()));
        } catch (PosixException e) {
            throw switch (e.errno) {
                case PosixFiles.ENOSPC, PosixFiles.EDQUOT -> noSpace(file, "creating " + tmp.getFileName() + ": " + e.getMessage(), e);
                case PosixFiles.ENOENT -> new HintFileException(file, Problem.MISSING, null,
                        "cannot create hint file: " + NewFiles.noNewFileIn(file), missing(file, e));
                default -> new HintFileException(file, Problem.IO, null,
                        "cannot create hint file: temporary " + tmp.getFileName() + ": " + e.getMessage(), e);
            };
        }
        boolean keep = false;
        try {
            if (like != null) {
                NewFiles.takeOwnership(fd, like);
            }
            int error = PosixFiles.fallocate(fd, fileBytes);
            if (error == PosixFiles.EOPNOTSUPP || error == PosixFiles.EINVAL) {
                PosixFiles.ftruncate(fd, fileBytes); // cannot allocate here: a sparse file (FORMAT.md §10)
            } else if (error == PosixFiles.ENOSPC || error == PosixFiles.EDQUOT || error == PosixFiles.EFBIG) {
                throw noSpace(file, "allocating " + fileBytes + " bytes: " + PosixFiles.errnoName(error), null);
            } else if (error != 0) {
                throw new HintFileException(file, Problem.IO, null,
                        "cannot allocate " + fileBytes + " bytes: " + PosixFiles.errnoName(error));
            }
            try (FileChannel channel = openDescriptorChannel(fd, false); Arena arena = Arena.ofConfined()) {
                MemorySegment h = channel.map(FileChannel.MapMode.READ_WRITE, 0, Layouts.HEADER.byteSize(), arena);
                header.writeImmutablePart(h);
                Memory.releaseLong(h, Layouts.HDR_MAGIC, Layouts.MAGIC_VALUE); // published last (§5)
                h.force();
            }
            TestSeams.beforePublish(); // nothing outside tests
            try {
                Files.createLink(file, tmp); // fails if another process published first: then we open theirs
                NewFiles.syncDirectory(file); // §5 creation step 5
            } catch (FileAlreadyExistsException lostRace) {
                if (exclusive) {
                    throw lostRace;
                }
                // the other creator's file is complete by construction
            }
            keep = true;
            return fd;
        } catch (PosixException e) {
            if (e.errno == PosixFiles.EFBIG || e.errno == PosixFiles.ENOSPC || e.errno == PosixFiles.EDQUOT) {
                throw noSpace(file, e.getMessage(), e);
            }
            throw new HintFileException(file, Problem.IO, null, "cannot create hint file: " + e.getMessage(), e);
        } catch (HintFileException | FileAlreadyExistsException e) {
            throw e;
        } catch (IOException e) {
            throw new HintFileException(file, Problem.IO, null, "cannot create hint file: " + e, e);
        } finally {
            if (!keep) {
                PosixFiles.close(fd);
            }
            Files.deleteIfExists(tmp); // published or not, the temporary name goes
        }
    }

    /**
     * §5 creation step 1: removes {@code <name>.<pid>.<16 hex>.tmp} siblings that this user owns
     * and whose creator is no longer running (it died between creating and publishing them).
     * Best effort: any failure leaves the stray file for a later creation.
     */
    private static void removeStrayTemporaries(Path file, String name) {
        Path dir = file.toAbsolutePath().getParent();
        if (dir == null) {
            return;
        }
        Pattern stray = Pattern.compile(Pattern.quote(name) + "\\.([0-9]{1,10})\\.[0-9a-f]{16}\\.tmp");
        try (DirectoryStream<Path> siblings = Files.newDirectoryStream(dir,
                p -> p.getFileName().toString().startsWith(name) && p.getFileName().toString().endsWith(".tmp"))) {
            int self = PosixFiles.geteuid();
            for (Path sibling : siblings) {
                Matcher m = stray.matcher(sibling.getFileName().toString());
                if (!m.matches()) {
                    continue;
                }
                long pid = Long.parseLong(m.group(1));
                if (ProcessIdentity.isRunning(pid)) {
                    continue; // its creator may still be at work
                }
                try {
                    PosixFiles.Stat stat = PosixFiles.stat(sibling, false);
                    if (stat.isRegularFile() && stat.uid() == self) {
                        Files.deleteIfExists(sibling);
                    }
                } catch (PosixException | IOException e) {
                    // another creator removed it first, or it is not ours to remove
                }
            }
        } catch (IOException | RuntimeException e) {
            // best effort (FORMAT.md §5 creation step 1)
        }
    }

    // ------------------------------------------------------------------ options (an existing file's layout wins)

    /**
     * §5 "Options": each option the caller set explicitly must equal the existing file's field,
     * except a read-only opener's hot threshold, which is that reader's own ({@link #readerThreshold}).
     */
    private static void checkOptions(Path file, Header header, HintStoreOptions options) throws HintFileException {
        if (options.isCapacitySet() && options.capacity() != header.geometry().capacity()) {
            throw mismatch(file, "capacity", options.capacity(), header.geometry().capacity(), "");
        }
        if (options.isMaxNameBytesSet() && options.maxNameBytes() != header.geometry().maxNameBytes()) {
            throw mismatch(file, "max_name_bytes", options.maxNameBytes(), header.geometry().maxNameBytes(), "");
        }
        if (options.isHotThresholdSet() && !options.readOnly() && options.hotThresholdNs() != header.hotThresholdNs()) {
            throw mismatch(file, "hot_threshold_ns", options.hotThresholdNs(), header.hotThresholdNs(),
                    ", or read-only, where a threshold is the reader's own");
        }
    }

    /**
     * The threshold a read-only store answers "hot" by (§5 "Options"): the one its options set, else
     * the file's. A reader's threshold changes no byte of the file, so it is the reader's to choose;
     * a writer's options describe the file it would create, so there it must match.
     */
    private static long readerThreshold(Header header, HintStoreOptions options) {
        return options.isHotThresholdSet() ? options.hotThresholdNs() : header.hotThresholdNs();
    }

    private static HintFileException mismatch(Path file, String field, long asked, long actual, String advice) {
        return new HintFileException(file, Problem.OPTIONS_MISMATCH, field,
                "options ask for " + field + " " + asked + " but the existing file has " + actual
                        + " (an existing file's layout wins; open it without that option" + advice + ")");
    }
}
