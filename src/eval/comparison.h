#pragma once

#include <string>

#include "protocol/tensor_file.h"
#include "record/result.h"
#include "task/task.h"

namespace d2k::eval {

using protocol::dtype_size;
using protocol::is_floating;
using protocol::MappedFile;
using protocol::TensorFile;

struct Comparison {
  record::OutputCheck check;
  std::string reason_code;  // empty when the output passed
};

// Compares a candidate's output file with the reference's: same dtype, shape and device, no
// NaN/Inf disagreement with the reference, and ||out - ref|| / ||ref|| (in double) within the
// task's effective gate. Integer and boolean outputs must match bit for bit. atol/rtol mismatches
// are counted and reported but do not decide.
Comparison compare_tensors(const TensorFile& candidate, const TensorFile& reference,
                           const task::Tolerance& tolerance);
// The same, with the reference's bytes already mapped (its file may be gone).
Comparison compare_tensors(const TensorFile& candidate, const TensorFile& reference,
                           const MappedFile& reference_data, const task::Tolerance& tolerance);

}  // namespace d2k::eval
