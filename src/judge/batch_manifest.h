#pragma once
// The manifest of `d2k judge batch`: a JSON array of items, each
//   {"kind": "impl", "task": ID_OR_FOLDER, "solution": FILE, "correct": true|false (optional)}
//   {"kind": "design", "task": ID_OR_FOLDER, "design": FILE}
// Relative paths are taken from the manifest's folder.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "record/judge_assessment.h"

namespace d2k::judge {

struct BatchItem {
  record::JudgeKind kind = record::JudgeKind::impl;
  std::string task;
  std::filesystem::path candidate;
  std::optional<bool> correct;  // impl only; unset: looked up in the store
};

// Throws std::invalid_argument naming the item index and field of the first problem.
std::vector<BatchItem> parse_batch_manifest(const nlohmann::json& manifest,
                                            const std::filesystem::path& base_dir);

}  // namespace d2k::judge
