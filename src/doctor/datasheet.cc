#include "doctor/datasheet.h"

#include <array>
#include <string_view>

namespace d2k::doctor {
namespace {

struct Known {
  std::string_view name;    // the CUDA device name, exactly
  std::string_view source;  // the datasheet the numbers come from
  double bf16_flops;        // dense, without sparsity
  double fp16_flops;
  double fp32_flops;        // plain fp32 (the CUDA cores; TF32 is a different dtype)
  double fp8_flops;         // e4m3 or e5m2 products with fp32 accumulation, dense
  double bytes_per_s;
};

// NVIDIA's datasheets for the SXM parts: H200 (141 GB HBM3e, 4.8 TB/s) and H100 SXM (80 GB
// HBM3, 3.35 TB/s) share Hopper's compute rates: 989.4 TFLOP/s dense bf16 and fp16, 66.9
// TFLOP/s fp32, 1978.9 TFLOP/s dense fp8.
constexpr std::array<Known, 2> kKnown{{
    {"NVIDIA H200", "datasheet (NVIDIA H200 SXM)", 989.4e12, 989.4e12, 66.9e12, 1978.9e12, 4.8e12},
    {"NVIDIA H100 80GB HBM3", "datasheet (NVIDIA H100 SXM)", 989.4e12, 989.4e12, 66.9e12, 1978.9e12,
     3.35e12},
}};

}  // namespace

std::optional<Datasheet> datasheet_for(const std::string& device_name) {
  for (const Known& known : kKnown) {
    if (device_name != known.name) continue;
    const std::string source(known.source);
    Datasheet sheet;
    sheet.matmul = {{"bf16", {known.bf16_flops, source}},
                    {"fp16", {known.fp16_flops, source}},
                    {"fp32", {known.fp32_flops, source}},
                    {"fp8", {known.fp8_flops, source}}};
    sheet.bandwidth = {known.bytes_per_s, source};
    return sheet;
  }
  return std::nullopt;
}

}  // namespace d2k::doctor
