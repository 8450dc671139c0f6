#include <fmt/format.h>

#include "cli/commands.h"
#include "doctor/checkup.h"
#include "store/store.h"

namespace d2k::cli {
namespace {

struct DoctorFlags {
  bool json = false;
  bool no_store = false;
};

std::string render(const doctor::Checkup& checkup, const std::optional<int64_t>& stored,
                   const std::string& store) {
  std::string out = "toolchain\n";
  for (const auto& component : checkup.toolchain) {
    out += fmt::format("  {:<15} {}\n", component.name,
                       component.found() ? component.version : "missing: " + component.detail);
  }
  if (!checkup.ceilings) {
    return out + fmt::format(
                     "\nno ceilings measured: {}\nevaluations on this machine get no speed of "
                     "light (%SOL)\n",
                     checkup.no_ceilings_reason);
  }
  const record::DeviceCeilings& ceilings = *checkup.ceilings;
  out += fmt::format("\nceilings of {} (measured: the best of each way tried)\n",
                     checkup.environment.device_name);
  for (const auto& [dtype, ceiling] : ceilings.matmul) {
    out += fmt::format("  {:<15} {:7.1f} TFLOP/s  {} ({}^3 products)\n", dtype + " matmul",
                       ceiling.rate / 1e12, ceiling.source, ceilings.matmul_size);
  }
  const auto stream = [&](const char* name, const record::Ceiling& ceiling, const char* what) {
    out += fmt::format("  {:<15} {:7.0f} GB/s     {} ({}, {} MiB)\n", name, ceiling.rate / 1e9,
                       ceiling.source, what, ceilings.stream_bytes >> 20);
  };
  stream("read", ceilings.read, "bytes read");
  stream("write", ceilings.write, "bytes written");
  stream("copy", ceilings.copy, "bytes read + written");
  if (ceilings.datasheet_bandwidth) {
    out += fmt::format("\nspeed-of-light bounds use the higher of these and the {}:\n",
                       ceilings.datasheet_bandwidth->source);
    for (const auto& [dtype, ceiling] : ceilings.datasheet_matmul) {
      out += fmt::format("  {:<15} {:7.1f} TFLOP/s\n", dtype + " matmul", ceiling.rate / 1e12);
    }
    out += fmt::format("  {:<15} {:7.0f} GB/s\n", "bandwidth",
                       ceilings.datasheet_bandwidth->rate / 1e9);
  } else {
    out += "\nno datasheet known for this device: bounds use the measured ceilings alone\n";
  }
  if (stored) out += fmt::format("\nstored as ceilings {} in {}\n", *stored, store);
  return out;
}

}  // namespace

std::function<int()> define_doctor(CLI::App& app, const GlobalOptions& global) {
  app.footer(
      "Checks the toolchain, then measures the device's matrix, read, write and copy ceilings "
      "and stores them, with the device's datasheet peaks, for speed-of-light bounds. Exit status: 0 when ceilings were measured, 1 when none were "
      "(no usable CUDA device, or the measurement failed), 2 on a usage error.");
  auto flags = std::make_shared<DoctorFlags>();
  app.add_flag("--json", flags->json, "print the findings as JSON");
  app.add_flag("--no-store", flags->no_store, "do not save the ceilings");
  return [flags, &global] {
    doctor::Checkup checkup = doctor::run_checkup();
    std::optional<int64_t> stored;
    const std::string store = store_path(global).string();
    if (checkup.ceilings && !flags->no_store) {
      stored = store::Store::open(store).ceilings().save(checkup.environment,
                                                              *checkup.ceilings, checkup.toolchain);
    }
    if (flags->json) {
      nlohmann::json out = checkup;
      out["stored_id"] = stored ? nlohmann::json(*stored) : nlohmann::json(nullptr);
      fmt::print("{}\n", out.dump(2));
    } else {
      fmt::print("{}", render(checkup, stored, store));
    }
    return checkup.ceilings ? kExitPassed : kExitFailed;
  };
}

}  // namespace d2k::cli
