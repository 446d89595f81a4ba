"""Run commands alternately (A, B, [C, ...], A, B, ...) and report each one's median wall time,
median CPU time (user + system, the child's own) and peak RSS, and the ratios of each to A.
Alternating keeps a noisy, shared machine fair to all of them.

    python3 benches/alternate.py RUNS 'COMMAND A' 'COMMAND B' ['COMMAND C' ...]

Wall time is measured around each child process; CPU time and peak RSS come from the child's
own rusage (os.wait4), so they are per run.
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
    cpu = usage.ru_utime + usage.ru_stime
    return wall, cpu, usage.ru_maxrss / 1024  # kB -> MB on Linux


def main():
    runs = int(sys.argv[1])
    commands = [shlex.split(c) for c in sys.argv[2:]]
    for argv in commands:  # warm-up: page cache, pyc files
        run(argv)
    times = [[] for _ in commands]
    cpus = [[] for _ in commands]
    peaks = [[] for _ in commands]
    for _ in range(runs):
        for i, argv in enumerate(commands):
            wall, cpu, peak = run(argv)
            times[i].append(wall)
            cpus[i].append(cpu)
            peaks[i].append(peak)
    for i, argv in enumerate(commands):
        print(
            f"{'ABCDEFGH'[i]}: median {statistics.median(times[i]) * 1000:7.1f} ms"
            f"  (min {min(times[i]) * 1000:7.1f}, max {max(times[i]) * 1000:7.1f})"
            f"  CPU {statistics.median(cpus[i]) * 1000:7.1f} ms"
            f"  peak RSS {max(peaks[i]):6.1f} MB   {shlex.join(argv)}"
        )
    for i in range(1, len(commands)):
        label = "ABCDEFGH"[i]
        ratio = statistics.median(times[i]) / statistics.median(times[0])
        paired = statistics.median(b / a for a, b in zip(times[0], times[i]))
        cpu = statistics.median(cpus[i]) / statistics.median(cpus[0])
        print(
            f"ratio {label}/A of medians: {ratio:.3f}   median of paired ratios: {paired:.3f}"
            f"   CPU {label}/A: {cpu:.3f}"
        )


if __name__ == "__main__":
    main()
