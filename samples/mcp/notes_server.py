#!/usr/bin/env python3
"""A tiny MCP server over stdio, for trying `toolprism mcp` offline: a notes store with five
tools, listed over two pages (nextCursor). It keeps nothing and reaches nothing; it only answers
`initialize` and `tools/list`. Run from the repository's root, as samples/mcp/.mcp.json says."""
import json
import sys

TOOLS = [
    {
        "name": "add_note",
        "title": "Add a note",
        "description": "Saves a note under a title. Overwrites a note of the same title.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "title": {"type": "string", "description": "The note's title."},
                "text": {"type": "string", "description": "The note, in Markdown."},
                "tags": {"type": "array", "items": {"type": "string"}, "description": "Labels to find it by."},
            },
            "required": ["title", "text"],
        },
        "annotations": {"destructiveHint": False, "idempotentHint": True},
    },
    {
        "name": "get_note",
        "title": "Read a note",
        "description": "Returns the note with this exact title.",
        "inputSchema": {
            "type": "object",
            "properties": {"title": {"type": "string", "description": "The note's title."}},
            "required": ["title"],
        },
        "annotations": {"readOnlyHint": True},
        "outputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
    },
    {
        "name": "search_notes",
        "title": "Search notes",
        "description": "Full-text search over every note; returns titles and the matching lines.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "Words to look for."},
                "limit": {"type": "integer", "description": "Most results to return (default 10)."},
            },
            "required": ["query"],
        },
        "annotations": {"readOnlyHint": True},
    },
    {
        "name": "list_notes",
        "title": "List notes",
        "description": "Lists every note's title, newest first.",
        "inputSchema": {"type": "object", "properties": {}},
        "annotations": {"readOnlyHint": True},
    },
    {
        "name": "delete_note",
        "title": "Delete a note",
        "description": "Deletes the note with this exact title. It cannot be undone.",
        "inputSchema": {
            "type": "object",
            "properties": {"title": {"type": "string", "description": "The note's title."}},
            "required": ["title"],
        },
        "annotations": {"destructiveHint": True},
    },
]

PAGE = 3

for line in sys.stdin:
    request = json.loads(line)
    method = request.get("method")
    if "id" not in request:
        continue
    if method == "initialize":
        result = {
            "protocolVersion": request["params"].get("protocolVersion", "2025-06-18"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "notes", "version": "1.0"},
        }
    elif method == "tools/list":
        start = int((request.get("params") or {}).get("cursor") or 0)
        result = {"tools": TOOLS[start:start + PAGE]}
        if start + PAGE < len(TOOLS):
            result["nextCursor"] = str(start + PAGE)
    else:
        reply = {"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32601, "message": "not here"}}
        print(json.dumps(reply), flush=True)
        continue
    print(json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": result}), flush=True)
