#pragma once

#include "report/renderer.h"

namespace d2k::report {

// One self-contained HTML page: inline CSS, inline SVG charts, no script and no external
// resource. Its Content-Security-Policy forbids both, so a browser logs any attempt.
class HtmlRenderer : public Renderer {
 public:
  std::string render(const Report& report, const RenderOptions& options) const override;
};

}  // namespace d2k::report
