#!/usr/bin/env python3
"""Generate the hostile-size captures `benches/hostile.sh` measures (deterministic).

    benches/hostile_gen.py OUTDIR

Writes, as Anthropic Messages request bodies:
  tools-100k.json     100,000 small tools (~13 MB), MCP-named, one parameter each
  desc-40mb.json      one tool whose description is 40 MB of prose
  enum-1m.json        one tool with a million-entry enum in its schema
  dots-4mb.json       4 MB of ". . . ." in one description (sentence-rule worst case)
  bang-4mb.json       4 MB of "!?!?" in one description
  eg-4mb.json         4 MB of "e.g. e.g. " in one description
  mixed-punct.json    200 tools, each 20 KB of mixed pathological punctuation
"""
import json
import os
import sys


def tool(name, description, schema=None):
    return {
        "name": name,
        "description": description,
        "input_schema": schema
        or {"type": "object", "properties": {"x": {"type": "string"}}},
    }


def body(tools):
    return {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "messages": [{"role": "user", "content": "hello"}],
        "tools": tools,
    }


def write(outdir, name, value):
    path = os.path.join(outdir, name)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(value, f, separators=(",", ":"), ensure_ascii=False)
    print(f"{path}: {os.path.getsize(path):,} bytes")


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else "target/hostile"
    os.makedirs(outdir, exist_ok=True)
    small = [
        tool(f"mcp__s{i % 50}__t{i:06d}", f"Tool {i}. Does one small thing.")
        for i in range(100_000)
    ]
    write(outdir, "tools-100k.json", body(small))
    words = "The quick brown fox jumps over the lazy dog. "
    big = (words * (40 * 1024 * 1024 // len(words) + 1))[: 40 * 1024 * 1024]
    write(outdir, "desc-40mb.json", body([tool("mcp__big__describe", big)]))
    enum = [f"v{i}" for i in range(1_000_000)]
    schema = {"type": "object", "properties": {"choice": {"type": "string", "enum": enum}}}
    write(outdir, "enum-1m.json", body([tool("mcp__enum__pick", "Pick one.", schema)]))
    mb4 = 4 * 1024 * 1024
    for name, unit in (("dots", ". "), ("bang", "!?"), ("eg", "e.g. ")):
        text = (unit * (mb4 // len(unit) + 1))[:mb4]
        write(outdir, f"{name}-4mb.json", body([tool(f"mcp__p__{name}", text)]))
    mixed = ". . . !?!? e.g. i.e. ... ?! etc. a.b.c. " * 512
    write(
        outdir,
        "mixed-punct.json",
        body([tool(f"mcp__p__t{i}", mixed) for i in range(200)]),
    )


if __name__ == "__main__":
    main()
