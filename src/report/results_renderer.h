#pragma once

#include "report/renderer.h"

namespace d2k::report {

// docs/results.md: the measured state of the suite from one store (Report::results), with the
// commands that produce the store and the page, and a flag on every latency that beat its
// speed-of-light bound.
class ResultsRenderer : public Renderer {
 public:
  std::string render(const Report& report, const RenderOptions& options) const override;
};

}  // namespace d2k::report
