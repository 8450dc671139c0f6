#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <d2k/native_abi.h>

namespace d2k::native {

// A tensor as the harness holds it: memory it (or get_inputs) owns, described by dtype name.
struct TensorArg {
  void* data = nullptr;
  std::string dtype;              // "float32", "bfloat16", ... (the names of tensor files)
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;  // in elements
  bool on_device = false;
};

// A static argument: an int or bool (`integer`) or a float.
struct ParamArg {
  std::string name;
  bool integer = false;
  int64_t int_value = 0;
  double float_value = 0.0;
};

// The d2k_native_call of one argument list, with the storage its pointers refer to. Built once
// per argument list, so a timed call only passes a pointer.
class CallArguments {
 public:
  // Throws std::invalid_argument for a dtype the ABI cannot describe.
  CallArguments(std::vector<TensorArg> inputs, std::vector<TensorArg> outputs,
                std::vector<ParamArg> params, void* stream);
  CallArguments(const CallArguments&) = delete;  // the call's pointers refer into this object
  CallArguments& operator=(const CallArguments&) = delete;

  void set_workspace(void* data, uint64_t bytes);
  const d2k_native_call& call() const { return call_; }

 private:
  std::vector<TensorArg> inputs_;
  std::vector<TensorArg> outputs_;
  std::vector<ParamArg> params_;
  std::vector<DLTensor> dl_inputs_;
  std::vector<DLTensor> dl_outputs_;
  std::vector<d2k_native_param> dl_params_;
  d2k_native_call call_{};
};

// The DLPack type of a dtype name; bool is {kDLBool = 6, 8 bits}. Throws std::invalid_argument.
DLDataType dl_data_type(const std::string& dtype);

}  // namespace d2k::native
