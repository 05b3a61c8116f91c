"""A hand-written JSON-RPC server over stdio that breaks MCP on purpose (no SDK, so it can).

``python raw_server.py MODE``: ``malformed`` answers every ``tools/call`` with a result whose
``content`` is not a list; ``duplicate`` lists the tool ``echo`` twice; ``badname`` lists a
tool named ``rm -rf``; ``silent`` reads requests and never answers; ``exit`` exits at once.
Everything else (the handshake, ``tools/list``) is answered as a real server would.
"""

from __future__ import annotations

import json
import sys

MODE = sys.argv[1]
ECHO = {"name": "echo", "inputSchema": {"type": "object", "properties": {}}}


def tools() -> list[dict[str, object]]:
    if MODE == "duplicate":
        return [ECHO, ECHO]
    if MODE == "badname":
        return [{**ECHO, "name": "rm -rf"}]
    return [ECHO]


def answer(request: dict[str, object]) -> dict[str, object] | None:
    method = request.get("method")
    if "id" not in request:
        return None  # a notification
    reply: dict[str, object] = {"jsonrpc": "2.0", "id": request["id"]}
    if method == "initialize":
        reply["result"] = {
            "protocolVersion": "2025-06-18",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "raw", "version": "0"},
        }
    elif method == "tools/list":
        reply["result"] = {"tools": tools()}
    elif method == "tools/call":
        reply["result"] = {"content": "not a list"}
    else:
        reply["error"] = {"code": -32601, "message": f"no method {method}"}
    return reply


def main() -> None:
    if MODE == "exit":
        sys.exit(4)
    for line in sys.stdin:
        if MODE == "silent":
            continue
        reply = answer(json.loads(line))
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
