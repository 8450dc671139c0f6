#pragma once

#include "report/renderer.h"

namespace d2k::report {

// GitHub-flavoured Markdown: a heading, caption, pipe table and "Missing" list per table.
class MarkdownRenderer : public Renderer {
 public:
  std::string render(const Report& report, const RenderOptions& options) const override;
};

}  // namespace d2k::report
