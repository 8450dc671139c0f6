#include "timing/method_registry.h"

#include <stdexcept>

#include "timing/events_method.h"
#include "timing/graph_method.h"

namespace d2k::timing {

const MethodRegistry& MethodRegistry::instance() {
  static const MethodRegistry registry;
  return registry;
}

MethodRegistry::MethodRegistry() {
  add<EventsMethod>();
  add<GraphMethod>();
}

template <typename Method>
void MethodRegistry::add() {
  // Methods are stateless, so one instance can speak for all of them.
  const Method method;
  entries_.push_back({method.name(), method.description(),
                      []() -> std::unique_ptr<MeasurementMethod> {
                        return std::make_unique<Method>();
                      }});
}

std::vector<std::string> MethodRegistry::names() const {
  std::vector<std::string> names;
  names.reserve(entries_.size());
  for (const Entry& entry : entries_) names.push_back(entry.name);
  return names;
}

std::string MethodRegistry::description(const std::string& name) const {
  return find(name).description;
}

std::unique_ptr<MeasurementMethod> MethodRegistry::create(const std::string& name) const {
  return find(name).create();
}

const MethodRegistry::Entry& MethodRegistry::find(const std::string& name) const {
  for (const Entry& entry : entries_) {
    if (entry.name == name) return entry;
  }
  std::string known;
  for (const Entry& entry : entries_) known += (known.empty() ? "" : ", ") + entry.name;
  throw std::invalid_argument("unknown timing method '" + name + "' (known: " + known + ")");
}

}  // namespace d2k::timing
