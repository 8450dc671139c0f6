#pragma once
// One output format of `d2k report`. A renderer only formats a built Report; it reads nothing.

#include <string>

#include "report/report.h"

namespace d2k::report {

struct RenderOptions {
  std::string table;  // CSV only: just this table (an id from report_tables), without comments
};

class Renderer {
 public:
  virtual ~Renderer() = default;
  virtual std::string render(const Report& report, const RenderOptions& options) const = 0;
};

}  // namespace d2k::report
