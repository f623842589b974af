/**
 * The bytes of a hint file (docs/FORMAT.md): the layouts, the header and its geometry, the record
 * rules, stored names and version numbers. Uses nothing of the library but the API's exception;
 * it knows no protocol, no system call and no command.
 */
package dev.hintmap.format;
