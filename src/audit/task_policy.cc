#include "audit/task_policy.h"

#include <algorithm>
#include <array>
#include <string_view>

namespace d2k::audit {

AuditPolicy audit_policy(const task::ImplementationRules& rules,
                         std::optional<int64_t> peak_aux_bytes_limit) {
  // The libraries whose kernels kernel_origin() recognizes as library compute.
  static constexpr std::array<std::string_view, 3> kComputeLibraries{"cublas", "cublasLt", "cudnn"};
  AuditPolicy policy;
  policy.library_compute_forbidden =
      std::any_of(rules.forbidden_libraries.begin(), rules.forbidden_libraries.end(),
                  [](const std::string& library) {
                    return std::find(kComputeLibraries.begin(), kComputeLibraries.end(),
                                     library) != kComputeLibraries.end();
                  });
  if (rules.custom_kernels_required) {
    policy.library_compute_forbidden = true;
    policy.aten_compute_forbidden = true;
    policy.custom_kernels_required = true;
  }
  policy.peak_aux_bytes_limit = peak_aux_bytes_limit;
  policy.host_sync_allowed = !rules.host_sync_reason.empty();
  return policy;
}

}  // namespace d2k::audit
