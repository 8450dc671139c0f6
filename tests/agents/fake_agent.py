#!/usr/bin/env python3
"""A scripted agent with no model: drives `d2k mcp` through a fixed trajectory.

`d2k agent run TASK --config C --agent "python3 tests/agents/fake_agent.py --correct FILE"`
starts it in the workspace with D2K_MCP_COMMAND (the server's argv, as JSON) in its environment.
It starts the server, reads the instructions, submits the untouched template (a wrong solution,
or --wrong FILE), writes --correct FILE as the solution, runs one bash command and submits again.
Every reply is printed to stderr; the last stdout line reports its (zero) token usage the way
d2k reads a command agent's usage. Exit status 1 when the server misbehaves.
"""

import argparse
import json
import os
import subprocess
import sys


class Server:
    def __init__(self, argv):
        self.process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True, encoding="utf-8")
        self.next_id = 0

    def request(self, method, params):
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise SystemExit("fake agent: the server closed its output")
        reply = json.loads(line)
        if reply.get("id") != self.next_id:
            raise SystemExit(f"fake agent: reply to the wrong request: {line}")
        if "error" in reply:
            raise SystemExit(f"fake agent: {method} failed: {reply['error']}")
        return reply["result"]

    def notify(self, method):
        self.process.stdin.write(json.dumps({"jsonrpc": "2.0", "method": method}) + "\n")
        self.process.stdin.flush()

    def call(self, tool, arguments):
        result = self.request("tools/call", {"name": tool, "arguments": arguments})
        text = result["content"][0]["text"]
        print(f"--- {tool} {json.dumps(arguments)[:200]}\n{text[:4000]}", file=sys.stderr)
        return result

    def close(self):
        self.process.stdin.close()
        return self.process.wait(timeout=60)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--correct", required=True, help="the solution submitted second")
    parser.add_argument("--wrong", help="the solution submitted first (default: the template)")
    parser.add_argument("--name", default="solution.py", help="workspace file name of the solution")
    args = parser.parse_args()
    with open(args.correct, encoding="utf-8") as f:
        correct = f.read()

    server = Server(json.loads(os.environ["D2K_MCP_COMMAND"]))
    init = server.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                         "clientInfo": {"name": "d2k-fake-agent", "version": "1"}})
    server.notify("notifications/initialized")
    tools = [tool["name"] for tool in server.request("tools/list", {})["tools"]]
    print(f"fake agent: protocol {init['protocolVersion']}, tools {tools}", file=sys.stderr)

    server.call("read", {"path": "INSTRUCTIONS.md"})
    if args.wrong:
        with open(args.wrong, encoding="utf-8") as f:
            server.call("write", {"path": args.name, "content": f.read()})
    first = server.call("submit", {"path": args.name})
    server.call("write", {"path": args.name, "content": correct})
    server.call("bash", {"command": f"ls; head -c 300 {args.name}", "timeout": 30})
    second = server.call("submit", {"path": args.name})
    status = server.close()

    verdicts = [r.get("structuredContent", {}).get("eligible") for r in (first, second)]
    print(f"fake agent: eligible per submission {verdicts}; server exit {status}", file=sys.stderr)
    print(json.dumps({"d2k_usage": {"prompt_tokens": 0, "completion_tokens": 0}}))
    return 0 if status == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
