#include "native/call_arguments.h"

#include <map>
#include <stdexcept>
#include <utility>

namespace d2k::native {
namespace {

// kDLBool is DLPack 0.8's; older headers (Debian's 0.6) lack the name, not the value.
constexpr uint8_t kBoolCode = 6;

DLTensor to_dl(TensorArg& tensor) {
  DLTensor dl{};
  dl.data = tensor.data;
  dl.device = {tensor.on_device ? kDLCUDA : kDLCPU, 0};
  dl.ndim = static_cast<int32_t>(tensor.shape.size());
  dl.dtype = dl_data_type(tensor.dtype);
  dl.shape = tensor.shape.data();
  dl.strides = tensor.strides.data();
  dl.byte_offset = 0;
  return dl;
}

}  // namespace

DLDataType dl_data_type(const std::string& dtype) {
  static const std::map<std::string, DLDataType> types = {
      {"float16", {kDLFloat, 16, 1}}, {"bfloat16", {kDLBfloat, 16, 1}},
      {"float32", {kDLFloat, 32, 1}}, {"float64", {kDLFloat, 64, 1}},
      {"int8", {kDLInt, 8, 1}},       {"int16", {kDLInt, 16, 1}},
      {"int32", {kDLInt, 32, 1}},     {"int64", {kDLInt, 64, 1}},
      {"uint8", {kDLUInt, 8, 1}},     {"bool", {kBoolCode, 8, 1}}};
  const auto it = types.find(dtype);
  if (it == types.end()) throw std::invalid_argument("no DLPack type for dtype '" + dtype + "'");
  return it->second;
}

CallArguments::CallArguments(std::vector<TensorArg> inputs, std::vector<TensorArg> outputs,
                             std::vector<ParamArg> params, void* stream)
    : inputs_(std::move(inputs)), outputs_(std::move(outputs)), params_(std::move(params)) {
  for (auto& tensor : inputs_) dl_inputs_.push_back(to_dl(tensor));
  for (auto& tensor : outputs_) dl_outputs_.push_back(to_dl(tensor));
  for (const auto& param : params_) {
    d2k_native_param dl{};
    dl.name = param.name.c_str();
    dl.kind = param.integer ? D2K_NATIVE_INT64 : D2K_NATIVE_FLOAT64;
    dl.int64_value = param.integer ? param.int_value : 0;
    dl.float64_value = param.integer ? 0.0 : param.float_value;
    dl_params_.push_back(dl);
  }
  call_.abi_version = D2K_NATIVE_ABI_VERSION;
  call_.num_inputs = static_cast<int32_t>(dl_inputs_.size());
  call_.inputs = dl_inputs_.data();
  call_.num_outputs = static_cast<int32_t>(dl_outputs_.size());
  call_.outputs = dl_outputs_.data();
  call_.num_params = static_cast<int32_t>(dl_params_.size());
  call_.params = dl_params_.data();
  call_.stream = stream;
}

void CallArguments::set_workspace(void* data, uint64_t bytes) {
  call_.workspace = data;
  call_.workspace_bytes = bytes;
}

}  // namespace d2k::native
