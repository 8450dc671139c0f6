#include "judge/batch_manifest.h"

#include <stdexcept>

#include <fmt/format.h>

namespace d2k::judge {

std::vector<BatchItem> parse_batch_manifest(const nlohmann::json& manifest,
                                            const std::filesystem::path& base_dir) {
  if (!manifest.is_array()) {
    throw std::invalid_argument("the batch manifest must be a JSON array of items");
  }
  std::vector<BatchItem> items;
  for (size_t index = 0; index < manifest.size(); ++index) {
    const nlohmann::json& entry = manifest[index];
    const auto fail = [&](const std::string& why) {
      return std::invalid_argument(fmt::format("batch manifest item {}: {}", index, why));
    };
    if (!entry.is_object()) throw fail("must be an object");
    const auto text = [&](const char* key) {
      const auto it = entry.find(key);
      if (it == entry.end() || !it->is_string() || it->get<std::string>().empty()) {
        throw fail(fmt::format("\"{}\" must be a non-empty string", key));
      }
      return it->get<std::string>();
    };
    BatchItem item;
    const std::string kind = text("kind");
    const auto parsed = record::parse_judge_kind(kind);
    if (!parsed) throw fail("\"kind\" must be \"impl\" or \"design\", got \"" + kind + "\"");
    item.kind = *parsed;
    item.task = text("task");
    const char* file_key = item.kind == record::JudgeKind::impl ? "solution" : "design";
    const std::filesystem::path file = text(file_key);
    item.candidate = file.is_absolute() ? file : base_dir / file;
    for (const auto& [key, value] : entry.items()) {
      const bool known = key == "kind" || key == "task" || key == file_key ||
                         (key == "correct" && item.kind == record::JudgeKind::impl);
      if (!known) throw fail("unexpected field \"" + key + "\"");
    }
    if (const auto correct = entry.find("correct"); correct != entry.end()) {
      if (!correct->is_boolean()) throw fail("\"correct\" must be true or false");
      item.correct = correct->get<bool>();
    }
    items.push_back(std::move(item));
  }
  return items;
}

}  // namespace d2k::judge
