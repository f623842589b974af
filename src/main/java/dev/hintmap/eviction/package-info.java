/**
 * The eviction policy (FORMAT.md §7.4): the CLOCK hand that chooses the slot a new region goes
 * into, over the dense reference bytes of the file.
 */
package dev.hintmap.eviction;
