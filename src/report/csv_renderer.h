#pragma once

#include "report/renderer.h"

namespace d2k::report {

// RFC 4180 CSV. All tables: each one after a "# <id>" line, its missing parts as "# missing:"
// lines, a blank line between tables. With RenderOptions::table: that table alone, plain CSV.
// Numeric cells hold the unrounded value (seconds, fractions), not the displayed text.
class CsvRenderer : public Renderer {
 public:
  std::string render(const Report& report, const RenderOptions& options) const override;
};

}  // namespace d2k::report
