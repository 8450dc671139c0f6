#pragma once

#include <memory>
#include <string>
#include <vector>

#include "timing/measurement_method.h"

namespace d2k::timing {

// Every measurement method, by name, so tasks select one in config.json and the CLI can list them.
// A new method is one line in the constructor (method_registry.cc).
class MethodRegistry {
 public:
  static const MethodRegistry& instance();

  // In registration order.
  std::vector<std::string> names() const;
  // Throw std::invalid_argument, listing the known names, when `name` is not one of them.
  std::string description(const std::string& name) const;
  std::unique_ptr<MeasurementMethod> create(const std::string& name) const;

 private:
  using Factory = std::unique_ptr<MeasurementMethod> (*)();
  struct Entry {
    std::string name;
    std::string description;
    Factory create;
  };

  MethodRegistry();
  template <typename Method>
  void add();
  const Entry& find(const std::string& name) const;

  std::vector<Entry> entries_;
};

}  // namespace d2k::timing
