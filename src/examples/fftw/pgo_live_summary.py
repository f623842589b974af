#!/usr/bin/env python3
"""The summary of one run of pgo-live.sh (docs/PGO.md, "The loop live"): from DIR/runtime.log and DIR/optimizer.log,
when the workload shifted, when the optimizer planned and published wisdom, when the runtime picked it up, the time
to adapt (shift to the first pick-up after it), and the throughput (median of the per-second MFLOP/s) in each phase.

    python3 src/examples/fftw/pgo_live_summary.py DIR     prints a markdown table

Standard library only.
"""
import pathlib
import statistics
import sys


def read(path: pathlib.Path) -> list[tuple[float, list[str]]]:
    lines = []
    if path.exists():
        for text in path.read_text().splitlines():
            words = text.split()
            try:
                lines.append((float(words[0]), words[1:]))
            except (ValueError, IndexError):
                pass  # another program's line
    return lines


def value(words: list[str], key: str) -> str:
    for w in words:
        if w.startswith(key + "="):
            return w[len(key) + 1:]
    return ""


def main(out: pathlib.Path) -> None:
    runtime, optimizer = read(out / "runtime.log"), read(out / "optimizer.log")
    start = next(t for t, w in runtime if w[:2] == ["event", "start"])
    end = next((t for t, w in runtime if w[:2] == ["event", "end"]), runtime[-1][0])
    rates = [(t - start, float(value(w, "mflops"))) for t, w in runtime if w[0] == "rate"]
    shift = next((t - start for t, w in runtime if w[:2] == ["event", "shift"]), None)
    pickups = [t - start for t, w in runtime if w[:2] == ["event", "pickup"]]
    plans = [(t - start, value(w, "new")) for t, w in optimizer if w[:2] == ["event", "plan"] and value(w, "new")]
    wisdoms = [t - start for t, w in optimizer if w[:2] == ["event", "wisdom"]]

    def median(a: float, b: float) -> str:
        v = [m for t, m in rates if a < t <= b]
        return f"{statistics.median(v):.0f} ({len(v)} s)" if v else "-"

    def first(times: list[float], after: float) -> float | None:
        return next((t for t in times if t > after), None)

    rows = ["| phase | from s | to s | MFLOP/s, median of the seconds |", "|---|---:|---:|---:|"]
    first_pickup = first(pickups, 0)
    cut = shift if shift is not None else end - start
    if first_pickup is not None and first_pickup < cut:
        rows.append(f"| first mix, before its wisdom | 0 | {first_pickup:.1f} | {median(0, first_pickup)} |")
        rows.append(f"| first mix, with its wisdom | {first_pickup:.1f} | {cut:.1f} | {median(first_pickup, cut)} |")
    else:
        rows.append(f"| first mix, no wisdom picked up | 0 | {cut:.1f} | {median(0, cut)} |")
    lines = []
    if shift is not None:
        # adapted: the runtime picked up wisdom that the optimizer published for a plan made after the shift
        plan = next(((t, new) for t, new in plans if t > shift), None)
        wis = first(wisdoms, plan[0]) if plan else None
        adapt = first(pickups, wis) if wis is not None else None
        stop = adapt if adapt is not None else end - start
        rows.append(f"| second mix, before new wisdom | {shift:.1f} | {stop:.1f} | {median(shift, stop)} |")
        if adapt is not None:
            rows.append(f"| second mix, with new wisdom | {adapt:.1f} | {end - start:.1f} | {median(adapt, end - start)} |")
        lines = ["", f"- shift at {shift:.1f} s; the optimizer's first plan with new transforms after it: "
                 + (f"{plan[0]:.1f} s ({plan[1]}); " if plan else "none; ")
                 + (f"wisdom published {wis:.1f} s; " if wis is not None else "")
                 + (f"picked up by the runtime {adapt:.1f} s" if adapt is not None else "not picked up"),
                 f"- time to adapt (shift to the pick-up of wisdom planned after it): {adapt - shift:.1f} s"
                 if adapt is not None else "- did not adapt within the run"]
    lines.append(f"- plans with new transforms: {len(plans)}, wisdom generations: {len(wisdoms)}, pick-ups: {len(pickups)};"
                 f" run of {end - start:.0f} s")
    print("\n".join((out / "machine.txt").read_text().splitlines() + [""] + rows + lines))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: pgo_live_summary.py DIR")
    main(pathlib.Path(sys.argv[1]))
