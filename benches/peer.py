"""The Python peer of the speed goal: load a capture and count the compact JSON of each tool
entry once with tiktoken (`encode_ordinary`), as a whole process.

    python3 benches/peer.py CAPTURE [o200k_base|cl100k_base]

Prints the sum of the per-tool counts. Needs `pip install tiktoken` and, offline, a
TIKTOKEN_CACHE_DIR filled from tiktoken-rs's assets (see docs/SPEED.md).
"""
import json
import sys

import tiktoken


def tools_of(body):
    if isinstance(body.get("result"), dict):  # MCP tools/list wrapped in JSON-RPC
        body = body["result"]
    return body.get("tools") or []


def main():
    enc = tiktoken.get_encoding(sys.argv[2] if len(sys.argv) > 2 else "o200k_base")
    with open(sys.argv[1], encoding="utf-8") as f:
        body = json.load(f)
    total = 0
    for tool in tools_of(body):
        text = json.dumps(tool, separators=(",", ":"), ensure_ascii=False)
        total += len(enc.encode_ordinary(text))
    print(total)


if __name__ == "__main__":
    main()
