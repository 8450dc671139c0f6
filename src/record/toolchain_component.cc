#include "record/toolchain_component.h"

namespace d2k::record {

void to_json(nlohmann::json& j, const ToolchainComponent& v) {
  j = {{"name", v.name}, {"version", v.version}, {"found", v.found()}, {"detail", v.detail}};
}

void from_json(const nlohmann::json& j, ToolchainComponent& v) {
  v.name = j.value("name", "");
  v.version = j.value("version", "");
  v.detail = j.value("detail", "");
}

}  // namespace d2k::record
