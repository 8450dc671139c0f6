#include "cli/commands.h"
#include <fmt/format.h>

#include "worker/worker.h"
#include "timing/method_registry.h"

namespace d2k::cli {

std::function<int()> define_worker(CLI::App& app, const GlobalOptions&) {
  app.group("");  // internal: hidden from --help
  auto fd = std::make_shared<int>(-1);
  app.add_option("--channel-fd", *fd, "descriptor of the private result channel")->required();
  return [fd] { return worker::run_worker(*fd); };
}

std::function<int()> define_timing_methods(CLI::App&, const GlobalOptions&) {
  return [] {
    const auto& registry = timing::MethodRegistry::instance();
    for (const auto& name : registry.names()) {
      fmt::print("{:<10} {}\n", name, registry.description(name));
    }
    return kExitPassed;
  };
}

}  // namespace d2k::cli
