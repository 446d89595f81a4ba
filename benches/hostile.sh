#!/usr/bin/env bash
# Hostile sizes, measured as a user would: the whole process, wall time and peak RSS from
# `/usr/bin/time -v`, for `toolprism report CAPTURE --json` (all strategies) on each input
# benches/hostile_gen.py writes. A benchmark, not a test: the figures go in docs/ROBUSTNESS.md.
#
#   benches/hostile.sh               # every input, RUNS=3 runs each (median wall, max RSS)
#   RUNS=1 benches/hostile.sh enum-1m tools-100k
#   RUNS=1 benches/hostile.sh trace-1gb   # `session --json` on a generated 1 GB claude-trace
#                                         # (written to $OUT, deleted afterwards)
#
# Bounds (docs/ROBUSTNESS.md): tools-100k under 3 s and 600 MB; each other input under 2 s and
# 500 MB. Time is only meaningful on a quiet machine: the script prints the load average and
# the CPU seconds (user + system) next to the wall time.
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=${RUNS:-3}
OUT=${OUT:-target/hostile}
cargo build --release --bin toolprism
[ -f "$OUT/tools-100k.json" ] || python3 benches/hostile_gen.py "$OUT"
TOOLPRISM=${TOOLPRISM:-target/release/toolprism}

inputs=("$@")
[ ${#inputs[@]} -gt 0 ] || inputs=(tools-100k desc-40mb enum-1m dots-4mb bang-4mb eg-4mb mixed-punct)
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)   runs: $RUNS"
printf '%-12s %10s %10s %10s %10s  %s\n' input bytes wall_s cpu_s peak_MB exit
for name in "${inputs[@]}"; do
    file="$OUT/$name.json"
    command=(report "$file" --json)
    if [ "$name" = trace-1gb ]; then
        # 320 turns of a 131-tool session, about 1.05 GB: streamed, memory must not grow.
        cargo build --release --example gen_trace
        file="$OUT/trace-1gb.jsonl"
        target/release/examples/gen_trace "$file" --turns 320 --mb 1400 >/dev/null
        command=(session "$file" --json)
    fi
    walls=() ; cpu=0 ; peak=0 ; status=0
    for _ in $(seq "$RUNS"); do
        log=$(mktemp)
        set +e
        /usr/bin/time -v "$TOOLPRISM" "${command[@]}" >/dev/null 2>"$log"
        status=$?
        set -e
        wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,t,":"); s=0; for(i=1;i<=n;i++) s=s*60+t[i]; print s}' "$log")
        user=$(awk -F': ' '/User time/ {print $2}' "$log")
        sys=$(awk -F': ' '/System time/ {print $2}' "$log")
        rss=$(awk -F': ' '/Maximum resident/ {print $2}' "$log")
        walls+=("$wall")
        cpu=$(echo "$user + $sys" | bc)
        [ "$rss" -gt "$peak" ] && peak=$rss
        rm -f "$log"
    done
    median=$(printf '%s\n' "${walls[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
    printf '%-12s %10s %10s %10s %10d  %s\n' "$name" "$(stat -c %s "$file")" "$median" "$cpu" $((peak / 1024)) "$status"
    if [ "$name" = trace-1gb ]; then rm -f "$file"; fi
done
