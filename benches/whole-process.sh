#!/usr/bin/env bash
# Whole-process speed of `toolprism report CAPTURE --json` (all strategies) against the Python
# peer (tiktoken counting each tool entry's compact JSON once), on the 1000-tool, ~3.6 MB
# benchmark capture. Goal: toolprism's median at most 0.6x the peer's; peak RSS under 150 MB.
#
#   benches/whole-process.sh            # RUNS=15 alternating runs by default
#   RUNS=30 ENCODING=cl100k_base benches/whole-process.sh
#   BASELINE=path/to/older/toolprism benches/whole-process.sh   # a third command: another build
#
# Steps: build release; generate the capture (deterministic); set up Python tiktoken offline
# (its BPE files copied from tiktoken-rs's assets); time both alternately (benches/alternate.py,
# median wall time and per-run peak RSS); then hyperfine and `/usr/bin/time -v` when present.
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=${RUNS:-15}
ENCODING=${ENCODING:-o200k_base}
OUT=${OUT:-target/bench}
mkdir -p "$OUT"

cargo build --release --bin toolprism --example gen_capture
CAPTURE="$OUT/capture-1000.json"
target/release/examples/gen_capture "$CAPTURE"
echo "capture: $CAPTURE ($(wc -c <"$CAPTURE") bytes)"

TOOLPRISM=${TOOLPRISM:-target/release/toolprism}
RUST_CMD="$TOOLPRISM report $CAPTURE --json --encoding $ENCODING"

# Python tiktoken, offline: tiktoken-rs ships the same BPE files; the names are tiktoken's
# cache keys.
python3 -c "import tiktoken" 2>/dev/null || pip install --quiet tiktoken
export TIKTOKEN_CACHE_DIR=${TIKTOKEN_CACHE_DIR:-$PWD/$OUT/tiktoken-cache}
mkdir -p "$TIKTOKEN_CACHE_DIR"
assets=$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/tiktoken-rs-*/assets | tail -1)
cp "$assets/o200k_base.tiktoken" "$TIKTOKEN_CACHE_DIR/fb374d419588a4632f3f557e76b4b70aebbca790"
cp "$assets/cl100k_base.tiktoken" "$TIKTOKEN_CACHE_DIR/9b5ad71b2ce5302211f9c61530b329a4922fc6a4"
PY_CMD="python3 benches/peer.py $CAPTURE $ENCODING"
echo "python peer: $($PY_CMD) tokens (sum of per-tool counts)"

echo
echo "== alternating runs (A = Python peer, B = toolprism${BASELINE:+, C = $BASELINE}), $RUNS each"
if [ -n "${BASELINE:-}" ]; then
    python3 benches/alternate.py "$RUNS" "$PY_CMD" "$RUST_CMD" \
        "$BASELINE report $CAPTURE --json --encoding $ENCODING"
else
    python3 benches/alternate.py "$RUNS" "$PY_CMD" "$RUST_CMD"
fi

if command -v hyperfine >/dev/null; then
    echo
    echo "== hyperfine"
    hyperfine --warmup 2 --runs "$RUNS" --export-json "$OUT/hyperfine.json" \
        -n python "$PY_CMD" -n toolprism "$RUST_CMD"
fi

echo
echo "== peak memory (/usr/bin/time -v)"
if [ -x /usr/bin/time ]; then
    # shellcheck disable=SC2086
    /usr/bin/time -v $RUST_CMD 2>&1 >/dev/null | grep -E "Maximum resident|Elapsed"
fi
