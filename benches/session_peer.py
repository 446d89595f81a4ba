"""The Python peer of the session speed goal: read a claude-trace JSONL trace and count each
model call's tools array once with tiktoken (`encode_ordinary` of its compact JSON), as a whole
process. Nothing more: no projections, no diffs, no cache model.

    python3 benches/session_peer.py TRACE [o200k_base|cl100k_base]

Prints the number of turns and the sum of their tools-array counts. Needs `pip install
tiktoken` and, offline, a TIKTOKEN_CACHE_DIR filled from tiktoken-rs's assets (see
benches/session.sh).
"""
import json
import sys
from urllib.parse import urlsplit

import tiktoken

MODEL_PATHS = ("/v1/messages", "/chat/completions", "/responses")


def main():
    enc = tiktoken.get_encoding(sys.argv[2] if len(sys.argv) > 2 else "o200k_base")
    turns = 0
    total = 0
    with open(sys.argv[1], encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            record = json.loads(line)
            request = record.get("request") or {}
            path = urlsplit(request.get("url", "")).path
            if request.get("method") != "POST" or not path.endswith(MODEL_PATHS):
                continue
            body = request.get("body")
            if isinstance(body, str):
                body = json.loads(body)
            tools = body.get("tools") or []
            text = json.dumps(tools, separators=(",", ":"), ensure_ascii=False)
            total += len(enc.encode_ordinary(text))
            turns += 1
    print(turns, total)


if __name__ == "__main__":
    main()
