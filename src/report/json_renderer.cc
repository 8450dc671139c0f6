#include "report/json_renderer.h"

namespace d2k::report {

std::string JsonRenderer::render(const Report& report, const RenderOptions&) const {
  return nlohmann::json(report).dump(2) + "\n";
}

}  // namespace d2k::report
