#include "cli/commands.h"
#include <fmt/format.h>

#include "record/reason_code.h"
#include "timing/method_registry.h"
#include "worker/worker.h"

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

std::function<int()> define_reason_codes(CLI::App&, const GlobalOptions&) {
  return [] {
    fmt::print("{}", record::reason_codes_markdown());
    return kExitPassed;
  };
}

}  // namespace d2k::cli
