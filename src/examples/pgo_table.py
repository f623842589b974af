#!/usr/bin/env python3
"""The table of docs/PGO.md from one run of pgo-arms.sh: DIR/results.csv (every timed run) and DIR/tuning.csv.

    python3 src/examples/pgo_table.py DIR      writes DIR/results.md and prints it

Per arm: tuner runs, tuning wall time (the tuner runs' own), the share of the recorded kernel time its plan covers,
the workload time (median of its runs, min-max), the load average before its runs, and the speed-up over A
(medians). D-random is the draw with the median speed-up of its draws (each draw is listed too). The ratios:
C's speed-up over B's (goal >= 0.9), C's tuning time over B's (goal <= 0.25), C's speed-up over D's at the same
budget (largest first; random, median draw); and the same for CE (C's plan fully tuned, every other problem
tuned cheaply as in E) against B and against DlE (Dl's plan with E's elsewhere). Standard library only.
"""
import csv
import pathlib
import statistics
import sys


def main(out: pathlib.Path) -> None:
    runs: dict[str, list[float]] = {}
    loads: dict[str, list[float]] = {}
    with open(out / "results.csv", newline="") as f:
        for row in csv.DictReader(f):
            runs.setdefault(row["arm"], []).append(float(row["wall_s"]))
            loads.setdefault(row["arm"], []).append(float(row["load1"]))
    tuning = {}
    with open(out / "tuning.csv", newline="") as f:
        for row in csv.DictReader(f):
            tuning[row["arm"]] = row
    med = {arm: statistics.median(v) for arm, v in runs.items()}
    speed = {arm: med["A"] / m for arm, m in med.items()}
    draws = sorted((a for a in runs if a.startswith("Dr")), key=lambda a: speed[a])
    dr = draws[(len(draws) - 1) // 2] if draws else None

    lines = ["| arm | plan | tuner runs | tuning s | covered | workload s, median | min - max | load | speed-up over A |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for arm in runs:
        t = tuning[arm]
        mark = " (median draw)" if arm == dr else ""
        lines.append(f"| {arm}{mark} | {t['plan']} | {t['tuner_runs']} | {float(t['tuning_s']):.1f} | "
                     f"{float(t['covered_share']):.1f} % | {med[arm]:.3f} | {min(runs[arm]):.3f} - {max(runs[arm]):.3f} | "
                     f"{min(loads[arm]):.1f} - {max(loads[arm]):.1f} | {speed[arm]:.2f}x |")

    def ratio(a: float, b: float) -> str:
        return f"{a / b:.2f}" if b else "n/a"

    tb, tc = float(tuning["B"]["tuning_s"]), float(tuning["C"]["tuning_s"])
    gain_b, gain_c = speed["B"] - 1, speed["C"] - 1
    lines += ["",
              f"- C's speed-up / B's: {ratio(speed['C'], speed['B'])} (goal >= 0.90); C's gain / B's gain "
              f"(speed-up - 1): {ratio(gain_c, gain_b) if gain_b > 0 else 'n/a (B gained nothing)'}",
              f"- C's tuning time / B's: {ratio(tc, tb)} (goal <= 0.25)",
              f"- C's speed-up / D's, same budget: largest first {ratio(speed['C'], speed['Dl'])}"
              + (f", random (median of {len(draws)} draws, {dr}) {ratio(speed['C'], speed[dr])}" if dr else ""),
              f"- E (cheap tuning everywhere): speed-up {speed['E']:.2f}x for {float(tuning['E']['tuning_s']):.1f} s",
              f"- CE (C's plan fully, the rest as E): speed-up / B's {ratio(speed['CE'], speed['B'])} (goal >= 0.90), "
              f"tuning time / B's {ratio(float(tuning['CE']['tuning_s']), tb)} (goal <= 0.25); over DlE (the same "
              f"budget without hints) {ratio(speed['CE'], speed['DlE'])}; over E {ratio(speed['CE'], speed['E'])}",
              f"- runs per arm: {len(runs['A'])}, interleaved {' '.join(runs)}; load average before each run "
              f"{min(min(v) for v in loads.values()):.1f} - {max(max(v) for v in loads.values()):.1f}"]
    text = "\n".join(lines) + "\n"
    (out / "results.md").write_text((out / "machine.txt").read_text() + "\n" + text)
    print(text, end="")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: pgo_table.py DIR")
    main(pathlib.Path(sys.argv[1]))
