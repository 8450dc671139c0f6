"""What the loopback model stand-ins share: the fixed trajectory they play and their request log.

A stand-in answers each model request of an agent client with the next step of one trajectory:
read the instructions, write the solution, run it with bash, submit it, then a final text. The
step is the number of tool results the request already carries, so retries and side requests
(titles, summaries) do not move it. Every request is appended to a JSON-lines log with its body,
the tools it offered and the usage the stand-in answered with, for the test to check.
"""

import http.server
import json
import os
import threading

FINAL_TEXT = "I submitted solution.py; it is my final answer."
# Usage the stand-ins report for every answer, so a test can add it up.
INPUT_TOKENS = 1200
OUTPUT_TOKENS = 80


def steps(solution_text):
    """The trajectory's tool calls, as (tool, arguments)."""
    check = ("python3 -c 'import torch, solution; x = torch.randn(4, 8); "
             "print(solution.run(x).sum(dim=-1))'")
    return [
        ("read", {"path": "INSTRUCTIONS.md"}),
        ("write", {"path": "solution.py", "content": solution_text}),
        ("bash", {"command": check}),
        ("submit", {"path": "solution.py"}),
    ]


class Log:
    """Appends one JSON line per request; safe across the server's threads."""

    def __init__(self, path):
        self._path = path
        self._lock = threading.Lock()

    def write(self, entry):
        with self._lock, open(self._path, "a", encoding="utf-8") as out:
            out.write(json.dumps(entry) + "\n")


def serve(handler_class, port_file):
    """Serves on an ephemeral loopback port, written to `port_file` once listening."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler_class)
    temporary = port_file + ".tmp"
    with open(temporary, "w", encoding="utf-8") as out:
        out.write(str(server.server_address[1]))
    os.replace(temporary, port_file)
    server.serve_forever()


class Handler(http.server.BaseHTTPRequestHandler):
    """The HTTP side both stand-ins share: reading the body, logging, writing the answer."""

    protocol_version = "HTTP/1.1"
    log = None  # set by the stand-in

    def log_message(self, *args):
        pass

    def read_body(self):
        length = int(self.headers.get("content-length") or 0)
        return self.rfile.read(length).decode("utf-8", "replace") if length else ""

    def answer(self, status, content_type, data):
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def answer_json(self, status, value):
        self.answer(status, "application/json", json.dumps(value).encode())

    def answer_events(self, events, named=True):
        """Server-sent events, `event:` lines included when `named`."""
        text = ""
        for event in events:
            if named:
                text += "event: " + event["type"] + "\n"
            text += "data: " + json.dumps(event) + "\n\n"
        self.answer(200, "text/event-stream", text.encode())
