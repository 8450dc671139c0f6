#include "record/finding.h"

namespace d2k::record {

void to_json(nlohmann::json& j, const Finding& v) {
  j = {{"rule", v.rule}, {"reason_code", v.reason_code}, {"message", v.message},
       {"file", v.file}, {"line", v.line},               {"evidence", v.evidence}};
}

void from_json(const nlohmann::json& j, Finding& v) {
  v.rule = j.value("rule", "");
  v.reason_code = j.value("reason_code", "");
  v.message = j.value("message", "");
  v.file = j.value("file", "");
  v.line = j.value("line", 0);
  v.evidence = j.value("evidence", std::vector<std::string>{});
}

}  // namespace d2k::record
