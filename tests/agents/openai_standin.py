"""A loopback stand-in for the OpenAI Responses API (POST /v1/responses), for Codex CLI.

It plays the trajectory of standin_trajectory.py through d2k's MCP tools, which Codex offers as
the functions of a namespace `mcp__d2k` (or, flat, as mcp__d2k__<tool>), streams its answers as
server-sent events, and logs every request. Requests whose bearer token is not --api-key get
the API's 401 error.

    openai_standin.py --port-file F --log L --solution S --api-key K
"""

import argparse
import json

import standin_trajectory as trajectory

NAMESPACE = "mcp__d2k"


def offered_tools(request):
    """The tools of a request as model-visible names: namespace__function for a namespace's."""
    names = []
    for tool in request.get("tools", []):
        if tool.get("type") == "namespace":
            names += [tool["name"] + "__" + child.get("name", "") for child in tool.get("tools", [])]
        else:
            names.append(tool.get("name") or tool.get("type"))
    return names


def tool_results_seen(request):
    items = request.get("input", [])
    return sum(1 for item in items if isinstance(item, dict) and item.get("type") == "function_call_output")


def uses_namespace(request):
    return any(tool.get("type") == "namespace" and tool.get("name") == NAMESPACE
               for tool in request.get("tools", []))


class OpenAIHandler(trajectory.Handler):
    steps = []
    api_key = ""

    def do_GET(self):
        self.log.write({"method": "GET", "path": self.path})
        if self.path.endswith("/models"):
            self.answer_json(200, {"object": "list", "data": []})
        else:
            self.answer_json(404, {"error": {"message": "not here", "type": "invalid_request_error"}})

    def do_POST(self):
        body = self.read_body()
        entry = {"method": "POST", "path": self.path, "body": body}
        if self.headers.get("authorization") != "Bearer " + self.api_key:
            entry["status"] = 401
            self.log.write(entry)
            self.answer_json(401, {"error": {"message": "Incorrect API key provided",
                                             "type": "invalid_request_error",
                                             "code": "invalid_api_key"}})
            return
        request = json.loads(body) if body else {}
        tools = offered_tools(request)
        step = tool_results_seen(request)
        entry.update(tools=tools, step=step, input_tokens=trajectory.INPUT_TOKENS,
                     output_tokens=trajectory.OUTPUT_TOKENS)
        self.log.write(entry)
        if NAMESPACE + "__read" in tools and step < len(self.steps):
            tool, arguments = self.steps[step]
            item = {"type": "function_call", "id": "fc_%02d" % step, "call_id": "call_%02d" % step,
                    "arguments": json.dumps(arguments), "status": "completed"}
            if uses_namespace(request):
                item.update(name=tool, namespace=NAMESPACE)
            else:
                item["name"] = NAMESPACE + "__" + tool
        else:
            item = {"type": "message", "id": "msg_standin", "role": "assistant", "status": "completed",
                    "content": [{"type": "output_text", "text": trajectory.FINAL_TEXT, "annotations": []}]}
        response = {"id": "resp_%02d" % step, "object": "response", "status": "in_progress",
                    "model": request.get("model", "standin"), "output": []}
        usage = {"input_tokens": trajectory.INPUT_TOKENS,
                 "input_tokens_details": {"cached_tokens": 0},
                 "output_tokens": trajectory.OUTPUT_TOKENS,
                 "output_tokens_details": {"reasoning_tokens": 0},
                 "total_tokens": trajectory.INPUT_TOKENS + trajectory.OUTPUT_TOKENS}
        self.answer_events([
            {"type": "response.created", "response": response},
            {"type": "response.output_item.added", "output_index": 0, "item": dict(item, status="in_progress")},
            {"type": "response.output_item.done", "output_index": 0, "item": item},
            {"type": "response.completed",
             "response": dict(response, status="completed", output=[item], usage=usage)},
        ])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--solution", required=True)
    parser.add_argument("--api-key", required=True)
    args = parser.parse_args()
    with open(args.solution, encoding="utf-8") as source:
        OpenAIHandler.steps = trajectory.steps(source.read())
    OpenAIHandler.api_key = args.api_key
    OpenAIHandler.log = trajectory.Log(args.log)
    trajectory.serve(OpenAIHandler, args.port_file)


if __name__ == "__main__":
    main()
