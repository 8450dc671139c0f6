#pragma once

#include <string>

#include "record/result.h"

namespace d2k::cli {

// `d2k results --kernels ID`: per workload, what its audit call ran (kernels with their origin,
// launch shape and resources; copies and fills), its peak auxiliary memory and its findings.
std::string render_kernels(const record::EvaluationResult& result);

}  // namespace d2k::cli
