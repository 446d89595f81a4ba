#!/usr/bin/env bash
# Whole-process speed of `toolprism session TRACE --json` (all strategies) against the Python
# peer (read the trace and count each turn's tools array once with tiktoken), on a generated
# 240-turn, ~100 MB claude-trace of a 131-tool list. Goal: toolprism at most 0.35x the peer's
# time, peak RSS under 400 MB.
#
#   benches/session.sh               # RUNS=1: one run each, side by side (the machine is shared)
#   RUNS=3 benches/session.sh
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=${RUNS:-1}
ENCODING=${ENCODING:-o200k_base}
OUT=${OUT:-target/bench}
mkdir -p "$OUT"

cargo build --release --bin toolprism --example gen_trace
TRACE="$OUT/session-240.jsonl"
[ -s "$TRACE" ] || target/release/examples/gen_trace "$TRACE"
echo "trace: $TRACE ($(wc -c <"$TRACE") bytes, $(wc -l <"$TRACE") lines)"

python3 -c "import tiktoken" 2>/dev/null || pip install --quiet tiktoken
export TIKTOKEN_CACHE_DIR=${TIKTOKEN_CACHE_DIR:-$PWD/$OUT/tiktoken-cache}
mkdir -p "$TIKTOKEN_CACHE_DIR"
assets=$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/tiktoken-rs-*/assets | tail -1)
cp "$assets/o200k_base.tiktoken" "$TIKTOKEN_CACHE_DIR/fb374d419588a4632f3f557e76b4b70aebbca790"
cp "$assets/cl100k_base.tiktoken" "$TIKTOKEN_CACHE_DIR/9b5ad71b2ce5302211f9c61530b329a4922fc6a4"

PY_CMD="python3 benches/session_peer.py $TRACE $ENCODING"
RUST_CMD="target/release/toolprism session $TRACE --json --encoding $ENCODING"

echo
echo "== alternating runs (A = Python peer, B = toolprism session --json), $RUNS each"
python3 benches/alternate.py "$RUNS" "$PY_CMD" "$RUST_CMD"
