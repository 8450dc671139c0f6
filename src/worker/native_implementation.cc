#include "worker/native_implementation.h"

#include <new>

#include <fmt/format.h>

#include "worker/native_timing_backend.h"

namespace d2k::worker {
namespace {

std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size());
  int64_t stride = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    strides[d] = stride;
    stride *= shape[d];
  }
  return strides;
}

size_t byte_size(const protocol::TensorFile& spec) {
  return static_cast<size_t>(spec.numel()) * protocol::dtype_size(spec.dtype);
}

}  // namespace

NativeImplementation::NativeImplementation(python::Session& session,
                                           const std::filesystem::path& library,
                                           std::vector<std::string> arguments, bool on_device,
                                           CUstream stream)
    : session_(session), library_(library), arguments_(std::move(arguments)),
      on_device_(on_device), stream_(stream) {}

std::optional<uint64_t> NativeImplementation::prepare(
    int handle, const std::vector<protocol::TensorFile>& output_specs) {
  frames_.clear();
  workspace_.reset();
  outputs_.clear();
  output_specs_ = output_specs;
  for (const auto& spec : output_specs_) {
    outputs_.push_back(std::make_unique<runtime::Buffer>(byte_size(spec), spec.on_device));
  }
  const uint64_t bytes = library_.setup(frame(handle).call());
  if (bytes > 0) {
    try {
      workspace_ = std::make_unique<runtime::Buffer>(bytes, on_device_);
    } catch (const std::bad_alloc&) {
      throw native::CallError(fmt::format(
          "cannot allocate the {} bytes of workspace d2k_native_setup asked for", bytes));
    }
    for (auto& [unused, frame] : frames_) frame->set_workspace(workspace_->data(), bytes);
  }
  return bytes;
}

void NativeImplementation::reset_outputs() {
  for (auto& output : outputs_) output->fill(0xFF, stream_);
}

void NativeImplementation::call(int handle) { library_.run(frame(handle).call()); }

std::optional<int64_t> NativeImplementation::aux_memory_bytes(int64_t driver_allocated_peak,
                                                              size_t) {
  const int64_t workspace = workspace_ ? static_cast<int64_t>(workspace_->bytes()) : 0;
  return workspace + driver_allocated_peak;
}

std::vector<python::TensorInfo> NativeImplementation::outputs(size_t expected) const {
  if (expected != outputs_.size()) {
    throw python::OutputError("output_count",
                              fmt::format("the reference has {} outputs; the task declares {}",
                                          outputs_.size(), expected));
  }
  std::vector<python::TensorInfo> tensors;
  for (size_t i = 0; i < outputs_.size(); ++i) {
    const protocol::TensorFile& spec = output_specs_[i];
    tensors.push_back({outputs_[i]->data(), spec.dtype, protocol::dtype_size(spec.dtype), spec.shape,
                       contiguous_strides(spec.shape), spec.on_device});
  }
  return tensors;
}

std::unique_ptr<timing::TimingBackend> NativeImplementation::cuda_backend(Device& device) {
  return std::make_unique<NativeTimingBackend>(device);
}

const native::CallArguments& NativeImplementation::frame(int handle) {
  if (const auto found = frames_.find(handle); found != frames_.end()) return *found->second;
  std::vector<native::TensorArg> inputs;
  std::vector<native::ParamArg> params;
  for (size_t i = 0; i < arguments_.size(); ++i) {
    if (const auto tensor = session_.argument_tensor(handle, i)) {
      inputs.push_back({tensor->data, tensor->dtype, tensor->shape, tensor->strides,
                        tensor->on_device});
      continue;
    }
    const auto scalar = session_.argument_scalar(handle, i);
    if (!scalar) {
      throw std::runtime_error(fmt::format(
          "argument {} is {}; a native candidate takes tensors and int, float or bool values",
          arguments_[i], session_.argument_repr(handle, i)));
    }
    params.push_back({arguments_[i], scalar->integer, scalar->int_value, scalar->float_value});
  }
  std::vector<native::TensorArg> outputs;
  for (size_t i = 0; i < outputs_.size(); ++i) {
    const protocol::TensorFile& spec = output_specs_[i];
    outputs.push_back({outputs_[i]->data(), spec.dtype, spec.shape,
                       contiguous_strides(spec.shape), spec.on_device});
  }
  auto frame = std::make_unique<native::CallArguments>(std::move(inputs), std::move(outputs),
                                                       std::move(params), stream_);
  if (workspace_) frame->set_workspace(workspace_->data(), workspace_->bytes());
  return *(frames_[handle] = std::move(frame));
}

}  // namespace d2k::worker
