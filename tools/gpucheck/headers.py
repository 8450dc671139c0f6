"""The `expect-verdict:` / `expect-reason:` / `expect-message:` header of an exploit or fixture
candidate, as the C++ tests read it (src/util/expect_header_test_util.h): the leading comment
lines (`#` in Python, `//` in C++), each `expect-KEY: value`."""

import dataclasses
import pathlib


@dataclasses.dataclass
class Expectation:
    verdict: str = "passed"  # a candidate without a header must pass
    reason: str = ""
    messages: list = dataclasses.field(default_factory=list)


def read_expectation(path):
    text = pathlib.Path(path).read_text(errors="replace")
    comment = "//" if pathlib.Path(path).suffix in (".cu", ".cpp", ".cc", ".h") else "#"
    expectation = Expectation()
    for line in text.splitlines():
        if not line.startswith(comment):
            break
        body = line[len(comment):].strip()
        key, _, value = body.partition(":")
        value = value.strip()
        if key == "expect-verdict":
            expectation.verdict = value
        elif key == "expect-reason":
            expectation.reason = value
        elif key == "expect-message":
            expectation.messages.append(value)
    return expectation
