#include "doctor/checkup.h"

#include <unistd.h>

#include "doctor/ceilings.h"
#include "doctor/cuda_ceiling_probe.h"
#include "doctor/toolchain_survey.h"
#include "native/toolchain.h"
#include "runtime/cuda_driver.h"

namespace d2k::doctor {
namespace {

std::string version_of(const std::vector<record::ToolchainComponent>& toolchain,
                       const std::string& name) {
  for (const auto& component : toolchain) {
    if (component.name == name) return component.version;
  }
  return "";
}

}  // namespace

Checkup run_checkup() {
  Checkup checkup;
  const runtime::DeviceAvailability availability = runtime::probe_cuda_device();
  std::unique_ptr<CudaCeilingProbe> probe;
  SurveyInputs inputs{native::nvcc_toolchain().compiler, native::cxx_toolchain().compiler,
                      D2K_PYTHON_EXECUTABLE, std::nullopt, availability.reason};
  if (availability.available) {
    try {
      probe = std::make_unique<CudaCeilingProbe>();
      inputs.driver_cuda_version = probe->driver_version();
    } catch (const std::exception& error) {
      checkup.no_ceilings_reason = std::string("the device cannot be measured: ") + error.what();
    }
  } else {
    checkup.no_ceilings_reason = "no usable CUDA device: " + availability.reason;
  }
  checkup.toolchain = survey_toolchain(inputs, run_program);

  record::Environment& environment = checkup.environment;
  // In the form the workers report them (src/worker/worker.cc, announce), so that the doctor's
  // ceilings and the evaluations of the same stack share one environment row.
  environment.cuda = version_of(checkup.toolchain, "cuda");
  environment.driver = version_of(checkup.toolchain, "driver");
  if (!environment.driver.empty() && !environment.cuda.empty()) {
    environment.driver += " (CUDA " + environment.cuda + ")";
  }
  environment.torch = version_of(checkup.toolchain, "torch");
  environment.triton = version_of(checkup.toolchain, "triton");
  environment.python = version_of(checkup.toolchain, "python");
  if (environment.python.starts_with("Python ")) environment.python.erase(0, 7);
  environment.d2k_version = D2K_VERSION;
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  environment.host = host;
  if (!probe) return checkup;
  environment.device_name = probe->device_name();
  try {
    checkup.ceilings = measure_ceilings(*probe, environment.device_name);
  } catch (const std::exception& error) {
    checkup.no_ceilings_reason = std::string("measuring the ceilings failed: ") + error.what();
  }
  return checkup;
}

void to_json(nlohmann::json& j, const Checkup& v) {
  j = {{"toolchain", v.toolchain},
       {"device_name", v.environment.device_name.empty() ? nlohmann::json(nullptr)
                                                         : nlohmann::json(v.environment.device_name)},
       {"ceilings", v.ceilings ? nlohmann::json(*v.ceilings) : nlohmann::json(nullptr)},
       {"no_ceilings_reason", v.no_ceilings_reason}};
}

}  // namespace d2k::doctor
