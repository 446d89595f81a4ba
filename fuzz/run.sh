#!/usr/bin/env bash
# Run every fuzz target in turn, one job each (the machine is shared), SECS seconds each
# (default 300), and print each run's last libFuzzer status line (executions, coverage).
#   fuzz/run.sh                 # all targets
#   SECS=600 fuzz/run.sh report  # one target, ten minutes
#   MAXLEN=512 fuzz/run.sh tokenizer  # short inputs only (many more executions)
set -uo pipefail
cd "$(dirname "$0")"
SECS=${SECS:-300}
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(capture report report_tiktoken sanitize tokenizer trace)
[ -d corpus ] || ./seed.sh
mkdir -p logs
for target in "${targets[@]}"; do
    mkdir -p "corpus/$target" "artifacts/$target"
    RUSTC_BOOTSTRAP=1 cargo fuzz run -s none -a "$target" "corpus/$target" -- \
        -jobs=1 -workers=1 -max_total_time="$SECS" -max_len="${MAXLEN:-65536}" -timeout=20 \
        -rss_limit_mb=2048 -artifact_prefix="artifacts/$target/" -print_final_stats=1 \
        >"logs/$target.cargo.log" 2>&1
    status=$?
    # Under -jobs=1 libFuzzer runs the target in a child that logs to fuzz-0.log.
    if [ -f fuzz-0.log ]; then mv fuzz-0.log "logs/$target.log"; else cp "logs/$target.cargo.log" "logs/$target.log"; fi
    echo "$target: exit $status · $(grep -E '^#[0-9]+' "logs/$target.log" | tail -1)"
    grep -E 'stat::number_of_executed_units|stat::peak_rss_mb' "logs/$target.log" | tr '\n' ' '
    echo
    ls "artifacts/$target" 2>/dev/null | sed "s/^/  finding: /"
done
