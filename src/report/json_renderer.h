#pragma once

#include "report/renderer.h"

namespace d2k::report {

// The data model as indented JSON; absent values are null.
class JsonRenderer : public Renderer {
 public:
  std::string render(const Report& report, const RenderOptions& options) const override;
};

}  // namespace d2k::report
