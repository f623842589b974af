/**
 * The operating system beneath the store, through the FFM API: POSIX calls (open, stat, map,
 * ACLs), system call numbers, the identity of a process and whether it maps a file, and the
 * exclusive creation of new files. Knows nothing of the hint file's format or protocol: the
 * store and the command line tool call it, never the reverse.
 */
package dev.hintmap.os;
