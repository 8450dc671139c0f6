#pragma once
// One reason an implementation is not valid (docs/protocol.md): a broken requirement rule found
// by static analysis of the candidate's source, or by the runtime audit of the kernels it ran.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace d2k::record {

struct Finding {
  std::string rule;         // the requirement broken, e.g. "forbidden_call:torch.matmul"
  std::string reason_code;  // stable, machine-readable, e.g. "forbidden_call", "side_stream"
  std::string message;      // what was found, for a person
  std::string file;         // source file (workspace-relative) when the finding has one
  int line = 0;             // 1-based; 0 when it has no line
  std::vector<std::string> evidence;  // e.g. the offending kernel names or source text
};

void to_json(nlohmann::json& j, const Finding& v);
void from_json(const nlohmann::json& j, Finding& v);

}  // namespace d2k::record
