/**
 * What tests of every package share: waiting for a condition ({@link dev.hintmap.testkit.Await}),
 * child JVMs and their output, the C tools, sparse copies, a user attached to a file, the kinds of
 * store a test runs against. Holds no test of its own.
 */
package dev.hintmap.testkit;
