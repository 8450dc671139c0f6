/* d2k native candidate ABI, version 1 (docs/native-abi.md).
 *
 * A native candidate is one C++ (.cpp) or CUDA C++ (.cu) source file that d2k compiles into a
 * shared object and loads into its candidate worker. It exports, with C linkage:
 *
 *   d2k_native_abi_version   required; returns D2K_NATIVE_ABI_VERSION
 *   d2k_native_run           required; one call of the operator
 *   d2k_native_setup         optional; asks for a workspace before the first call
 *
 * Including this header before defining them gives them C linkage and default visibility.
 * Everything here is plain C so that any compiler d2k drives can read it. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <dlpack/dlpack.h>

/* Bumped on any change to the structs or entry points below; d2k refuses a library that reports
 * another version. */
#define D2K_NATIVE_ABI_VERSION 1

#if defined(__GNUC__) || defined(__clang__)
#define D2K_NATIVE_EXPORT __attribute__((visibility("default")))
#else
#define D2K_NATIVE_EXPORT
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The kind of a static parameter. */
enum {
  D2K_NATIVE_INT64 = 0,   /* a Python int or bool (True is 1) */
  D2K_NATIVE_FLOAT64 = 1  /* a Python float */
};

/* One static (non-tensor) argument of the call, as get_inputs returned it. */
typedef struct {
  const char* name;      /* its name in the task's evaluation.arguments */
  int32_t kind;          /* D2K_NATIVE_INT64 or D2K_NATIVE_FLOAT64 */
  int64_t int64_value;   /* set when kind is D2K_NATIVE_INT64 */
  double float64_value;  /* set when kind is D2K_NATIVE_FLOAT64 */
} d2k_native_param;

/* Everything one call receives. The harness owns every pointer; none outlives the call.
 *
 * inputs:  the tensor arguments in evaluation.arguments order (static arguments are left out
 *          and appear in params). Declared mutable inputs are updated in place; every other
 *          input must be left unchanged.
 * outputs: the evaluation.outputs, allocated by the harness with the reference's shapes and
 *          dtypes, on the device for CUDA tasks and in host memory for CPU tasks; the call
 *          writes every element.
 * Every DLTensor has explicit strides (in elements, never NULL), byte_offset 0, and device
 * {kDLCUDA, 0} or {kDLCPU, 0}. Outputs are contiguous; inputs are what get_inputs returned.
 *
 * stream:  the CUstream / cudaStream_t to launch every kernel on; NULL for CPU tasks. Timing
 *          records events on it, and graph timing captures it, so work must not be moved to
 *          another stream. Return without synchronizing.
 * workspace: device (CUDA tasks) or host (CPU tasks) memory of workspace_bytes bytes, 256-byte
 *          aligned, the size d2k_native_setup asked for; NULL when it asked for none. Its
 *          contents are undefined at every call. */
typedef struct {
  int32_t abi_version; /* D2K_NATIVE_ABI_VERSION of the harness */
  int32_t num_inputs;
  DLTensor* inputs;
  int32_t num_outputs;
  DLTensor* outputs;
  int32_t num_params;
  const d2k_native_param* params;
  void* stream;
  void* workspace;
  uint64_t workspace_bytes;
} d2k_native_call;

/* Required. Return D2K_NATIVE_ABI_VERSION. */
D2K_NATIVE_EXPORT int32_t d2k_native_abi_version(void);

/* Required. One call of the operator. Return 0 on success. On failure return any other value
 * and write a NUL-terminated message of at most error_size bytes to `error`; the workload's
 * verdict is runtime_error with that message. */
D2K_NATIVE_EXPORT int32_t d2k_native_run(const d2k_native_call* call, char* error,
                                         size_t error_size);

/* Optional. Called once per workload, before the first call, outside every timed region, with
 * the first call's tensors and no workspace. Store the workspace size needed (0 for none) in
 * *workspace_bytes. Shapes, dtypes and params stay the same for every call of the workload;
 * data pointers may change, so do not keep them. Return 0 on success, as d2k_native_run. */
D2K_NATIVE_EXPORT int32_t d2k_native_setup(const d2k_native_call* call, uint64_t* workspace_bytes,
                                           char* error, size_t error_size);

/* The parameter called `name`, or NULL. */
static inline const d2k_native_param* d2k_native_find_param(const d2k_native_call* call,
                                                            const char* name) {
  for (int32_t i = 0; i < call->num_params; ++i) {
    if (strcmp(call->params[i].name, name) == 0) return &call->params[i];
  }
  return NULL;
}

#ifdef __cplusplus
}
#endif
