#pragma once
// The software d2k's evaluations depend on, found by running each program (`nvcc --version`,
// `python3 -c "import torch; ..."`). Programs are run through a ProgramRunner so that tests can
// script their output.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "record/toolchain_component.h"

namespace d2k::doctor {

struct ProgramRun {
  bool succeeded = false;  // started and exited with status 0
  std::string output;      // stdout and stderr together, or why it could not start
};

using ProgramRunner = std::function<ProgramRun(const std::vector<std::string>& argv)>;

// Runs argv with a time limit through native::run_command.
ProgramRun run_program(const std::vector<std::string>& argv);

// What the survey needs besides programs: the compilers d2k would use, the embedded Python, and
// the CUDA version the driver supports, when a device was usable (else why not).
struct SurveyInputs {
  std::string nvcc;
  std::string host_compiler;
  std::string python;
  std::optional<std::string> driver_cuda_version;
  std::string no_device_reason;
};

// driver, cuda, nvcc, host compiler, python, torch, triton: a version each, or why it is missing.
std::vector<record::ToolchainComponent> survey_toolchain(const SurveyInputs& inputs,
                                                         const ProgramRunner& run);

}  // namespace d2k::doctor
