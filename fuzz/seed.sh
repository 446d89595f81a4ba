#!/usr/bin/env bash
# Seed the fuzz corpora from the repository's samples and regression inputs (not committed:
# corpora grow large). Run from anywhere: fuzz/seed.sh
set -euo pipefail
cd "$(dirname "$0")"
for target in capture report report_tiktoken trace; do
    mkdir -p "corpus/$target"
    cp ../samples/*.json ../tests/fixtures/*.json "corpus/$target/" 2>/dev/null || true
    cp ../tests/fixtures/regressions/* "corpus/$target/" 2>/dev/null || true
done
mkdir -p corpus/sanitize corpus/tokenizer
cp ../samples/*.json corpus/tokenizer/
cp ../samples/hostile.json corpus/sanitize/
printf 'plain text\n' > corpus/sanitize/plain
printf '\033[31mred\033[0m \302\233 \342\200\256 \342\200\213 \363\240\201\201' > corpus/sanitize/escapes
if [ -d ../samples/traces ]; then
    mkdir -p corpus/trace
    cp -r ../samples/traces/. corpus/trace/ 2>/dev/null || true
fi
echo "seeded: $(ls corpus | tr '\n' ' ')"
