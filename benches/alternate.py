"""Run two commands alternately (A, B, A, B, ...) and report median wall time and peak RSS of
each, and the ratio B/A. Alternating keeps a noisy, shared machine fair to both.

    python3 benches/alternate.py RUNS 'COMMAND A' 'COMMAND B'

Wall time is measured around each child process; peak RSS comes from the child's own rusage
(os.wait4), so it is per run.
"""
import os
import shlex
import statistics
import subprocess
import sys
import time


def run(argv):
    start = time.perf_counter()
    with open(os.devnull, "wb") as null:
        proc = subprocess.Popen(argv, stdout=null)
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if status != 0:
        sys.exit(f"command failed ({status}): {shlex.join(argv)}")
    return wall, usage.ru_maxrss / 1024  # kB -> MB on Linux


def main():
    runs = int(sys.argv[1])
    commands = [shlex.split(c) for c in sys.argv[2:4]]
    for argv in commands:  # warm-up: page cache, pyc files
        run(argv)
    times = [[], []]
    peaks = [[], []]
    for _ in range(runs):
        for i, argv in enumerate(commands):
            wall, peak = run(argv)
            times[i].append(wall)
            peaks[i].append(peak)
    for i, argv in enumerate(commands):
        print(
            f"{'AB'[i]}: median {statistics.median(times[i]) * 1000:7.1f} ms"
            f"  (min {min(times[i]) * 1000:7.1f}, max {max(times[i]) * 1000:7.1f})"
            f"  peak RSS {max(peaks[i]):6.1f} MB   {shlex.join(argv)}"
        )
    ratio = statistics.median(times[1]) / statistics.median(times[0])
    paired = statistics.median(b / a for a, b in zip(times[0], times[1]))
    print(f"ratio B/A of medians: {ratio:.3f}   median of paired ratios: {paired:.3f}")


if __name__ == "__main__":
    main()
