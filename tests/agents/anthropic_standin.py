"""A loopback stand-in for the Anthropic Messages API (POST /v1/messages), for Claude Code.

It plays the trajectory of standin_trajectory.py through d2k's MCP tools as Claude Code names
them (mcp__d2k__<tool>), streaming its answers as server-sent events when asked to, and logs
every request. A request without d2k's tools (a title or a summary) gets a short text. Requests
whose x-api-key is not --api-key get the API's 401 error.

    anthropic_standin.py --port-file F --log L --solution S --api-key K
"""

import argparse
import json

import standin_trajectory as trajectory

PREFIX = "mcp__d2k__"


def text_block(text):
    return {"type": "text", "text": text}


def tool_results_seen(request):
    count = 0
    for message in request.get("messages", []):
        content = message.get("content")
        if isinstance(content, list):
            count += sum(1 for block in content if block.get("type") == "tool_result")
    return count


class AnthropicHandler(trajectory.Handler):
    steps = []
    api_key = ""

    def do_HEAD(self):
        self.answer(200, "text/plain", b"")

    def do_GET(self):
        self.answer_json(404, {"type": "error", "error": {"type": "not_found_error", "message": self.path}})

    def do_POST(self):
        body = self.read_body()
        entry = {"method": "POST", "path": self.path, "body": body}
        if self.headers.get("x-api-key") != self.api_key:
            entry["status"] = 401
            self.log.write(entry)
            self.answer_json(401, {"type": "error", "error": {"type": "authentication_error",
                                                              "message": "invalid x-api-key"}})
            return
        request = json.loads(body) if body else {}
        if "/count_tokens" in self.path:
            self.log.write(entry)
            self.answer_json(200, {"input_tokens": trajectory.INPUT_TOKENS})
            return
        tools = [tool.get("name") for tool in request.get("tools", [])]
        step = tool_results_seen(request)
        entry.update(tools=tools, step=step, input_tokens=trajectory.INPUT_TOKENS,
                     output_tokens=trajectory.OUTPUT_TOKENS)
        self.log.write(entry)
        if PREFIX + "read" in tools and step < len(self.steps):
            tool, arguments = self.steps[step]
            block = {"type": "tool_use", "id": "toolu_%02d" % step, "name": PREFIX + tool,
                     "input": arguments}
            stop_reason = "tool_use"
        else:
            block = text_block(trajectory.FINAL_TEXT if PREFIX + "read" in tools else "d2k run")
            stop_reason = "end_turn"
        self.send_message(request, block, stop_reason)

    def send_message(self, request, block, stop_reason):
        message = {"id": "msg_standin", "type": "message", "role": "assistant",
                   "model": request.get("model", "standin"), "content": [],
                   "stop_reason": None, "stop_sequence": None,
                   "usage": {"input_tokens": trajectory.INPUT_TOKENS, "output_tokens": 1}}
        if not request.get("stream"):
            message.update(content=[block], stop_reason=stop_reason,
                           usage={"input_tokens": trajectory.INPUT_TOKENS,
                                  "output_tokens": trajectory.OUTPUT_TOKENS})
            self.answer_json(200, message)
            return
        if block["type"] == "tool_use":
            start = dict(block, input={})
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        else:
            start = text_block("")
            delta = {"type": "text_delta", "text": block["text"]}
        self.answer_events([
            {"type": "message_start", "message": message},
            {"type": "content_block_start", "index": 0, "content_block": start},
            {"type": "content_block_delta", "index": 0, "delta": delta},
            {"type": "content_block_stop", "index": 0},
            {"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": None},
             "usage": {"output_tokens": trajectory.OUTPUT_TOKENS}},
            {"type": "message_stop"},
        ])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--solution", required=True)
    parser.add_argument("--api-key", required=True)
    args = parser.parse_args()
    with open(args.solution, encoding="utf-8") as source:
        AnthropicHandler.steps = trajectory.steps(source.read())
    AnthropicHandler.api_key = args.api_key
    AnthropicHandler.log = trajectory.Log(args.log)
    trajectory.serve(AnthropicHandler, args.port_file)


if __name__ == "__main__":
    main()
