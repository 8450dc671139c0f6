#include "sweep/cell.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "util/hash.h"

namespace d2k::sweep {

std::string Cell::key() const {
  return fmt::format("{}|{}|{}|r{}|{}|{}", task_id, what, configuration, repeat, device_kind,
                     impl_hash);
}

std::string Cell::file_stem() const {
  std::string readable = fmt::format("{}.{}.r{}.{}", task_id, what, repeat, device_kind);
  for (char& c : readable) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '.' || c == '-' || c == '_';
    if (!plain) c = '_';
  }
  const std::string k = key();
  return readable + "." + util::to_hex(util::hash_bytes(k.data(), k.size())).substr(0, 12);
}

NLOHMANN_JSON_SERIALIZE_ENUM(CellKind, {{CellKind::evaluation, "evaluation"},
                                       {CellKind::agent_run, "agent_run"},
                                       {CellKind::judge_assessment, "judge_assessment"}})

void to_json(nlohmann::json& j, const Cell& cell) {
  j = {{"kind", cell.kind},           {"task_id", cell.task_id},
       {"what", cell.what},           {"configuration", cell.configuration},
       {"repeat", cell.repeat},       {"device_kind", cell.device_kind},
       {"impl_hash", cell.impl_hash}, {"store_kind", cell.store_kind},
       {"config", cell.config},       {"agent", cell.agent},
       {"model", cell.model},         {"arguments", cell.arguments},
       {"gpus", cell.gpus},           {"time_limit_seconds", cell.time_limit_seconds}};
}

void from_json(const nlohmann::json& j, Cell& cell) {
  j.at("kind").get_to(cell.kind);
  j.at("task_id").get_to(cell.task_id);
  j.at("what").get_to(cell.what);
  j.at("configuration").get_to(cell.configuration);
  j.at("repeat").get_to(cell.repeat);
  j.at("device_kind").get_to(cell.device_kind);
  j.at("impl_hash").get_to(cell.impl_hash);
  j.at("store_kind").get_to(cell.store_kind);
  j.at("config").get_to(cell.config);
  j.at("agent").get_to(cell.agent);
  j.at("model").get_to(cell.model);
  j.at("arguments").get_to(cell.arguments);
  j.at("gpus").get_to(cell.gpus);
  j.at("time_limit_seconds").get_to(cell.time_limit_seconds);
}

}  // namespace d2k::sweep
