#pragma once

#include <memory>
#include <string>
#include <vector>

#include "report/renderer.h"

namespace d2k::report {

// Every report format by name, so the CLI can list them and pick one with --format. A new
// format is one line in the constructor (renderer_registry.cc).
class RendererRegistry {
 public:
  static const RendererRegistry& instance();

  // In registration order.
  std::vector<std::string> names() const;
  // Throw std::invalid_argument, listing the known names, when `name` is not one of them.
  std::string description(const std::string& name) const;
  const Renderer& get(const std::string& name) const;

 private:
  struct Entry {
    std::string name;
    std::string description;
    std::unique_ptr<Renderer> renderer;
  };

  RendererRegistry();
  const Entry& find(const std::string& name) const;

  std::vector<Entry> entries_;
};

}  // namespace d2k::report
