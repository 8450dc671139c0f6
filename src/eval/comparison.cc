#include "eval/comparison.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <thread>
#include <vector>

#include <fmt/format.h>

namespace d2k::eval {
namespace {

float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  const uint32_t exponent = (h >> 10) & 0x1F;
  uint32_t mantissa = h & 0x3FF;
  uint32_t bits;
  if (exponent == 0) {
    if (mantissa == 0) {
      bits = sign;
    } else {  // subnormal: renormalize
      int e = -1;
      do {
        ++e;
        mantissa <<= 1;
      } while ((mantissa & 0x400) == 0);
      bits = sign | static_cast<uint32_t>(127 - 15 - e) << 23 | (mantissa & 0x3FF) << 13;
    }
  } else if (exponent == 0x1F) {
    bits = sign | 0x7F800000u | mantissa << 13;
  } else {
    bits = sign | (exponent + 127 - 15) << 23 | mantissa << 13;
  }
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

// Reads element i of a buffer of one dtype as a double; one instantiation per dtype, so the
// comparison loop has no per-element dispatch.
template <typename Stored>
struct Plain {
  static double load(const std::byte* p, int64_t i) {
    Stored v;
    std::memcpy(&v, p + i * sizeof(Stored), sizeof(Stored));
    return static_cast<double>(v);
  }
};

struct BFloat16 {
  static double load(const std::byte* p, int64_t i) {
    uint16_t h;
    std::memcpy(&h, p + i * 2, 2);
    const uint32_t bits = static_cast<uint32_t>(h) << 16;
    float v;
    std::memcpy(&v, &bits, 4);
    return v;
  }
};

struct Float16 {
  static double load(const std::byte* p, int64_t i) {
    uint16_t h;
    std::memcpy(&h, p + i * 2, 2);
    return half_to_float(h);
  }
};

struct Partial {
  double error_squared = 0.0;
  double reference_squared = 0.0;
  double max_abs = 0.0;
  int64_t mismatches = 0;
  int64_t nonfinite = 0;
};

bool same_class(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b;  // infinities must match in sign
}

template <typename Element>
Partial compare_floats(const std::byte* out, const std::byte* ref, int64_t begin, int64_t end,
                       double atol, double rtol) {
  Partial p;
  for (int64_t i = begin; i < end; ++i) {
    const double o = Element::load(out, i);
    const double r = Element::load(ref, i);
    if (!std::isfinite(r)) {
      // Where the reference is NaN or Inf, the candidate must reproduce it.
      if (!same_class(o, r)) ++p.nonfinite;
      continue;
    }
    if (!std::isfinite(o)) {
      ++p.nonfinite;
      continue;
    }
    const double diff = std::abs(o - r);
    p.error_squared += diff * diff;
    p.reference_squared += r * r;
    p.max_abs = std::max(p.max_abs, diff);
    if (diff > atol + rtol * std::abs(r)) ++p.mismatches;
  }
  return p;
}

Partial compare_range(const std::byte* out, const std::byte* ref, const std::string& dtype,
                      int64_t begin, int64_t end, double atol, double rtol) {
  if (dtype == "float32") return compare_floats<Plain<float>>(out, ref, begin, end, atol, rtol);
  if (dtype == "float64") return compare_floats<Plain<double>>(out, ref, begin, end, atol, rtol);
  if (dtype == "bfloat16") return compare_floats<BFloat16>(out, ref, begin, end, atol, rtol);
  if (dtype == "float16") return compare_floats<Float16>(out, ref, begin, end, atol, rtol);
  // Integers and booleans compare by their bits: a double cannot hold every int64.
  Partial p;
  const size_t size = dtype_size(dtype);
  for (int64_t i = begin; i < end; ++i) {
    if (std::memcmp(out + i * size, ref + i * size, size) != 0) ++p.mismatches;
  }
  return p;
}

std::string shape_text(const std::vector<int64_t>& shape) {
  return "[" + fmt::format("{}", fmt::join(shape, ", ")) + "]";
}

Comparison fail(record::OutputCheck check, std::string reason, std::string message) {
  check.passed = false;
  check.failure = std::move(message);
  return {std::move(check), std::move(reason)};
}

}  // namespace

Comparison compare_tensors(const TensorFile& candidate, const TensorFile& reference,
                           const task::Tolerance& tolerance) {
  const MappedFile reference_data(reference.path);
  return compare_tensors(candidate, reference, reference_data, tolerance);
}

Comparison compare_tensors(const TensorFile& candidate, const TensorFile& reference,
                           const MappedFile& reference_data, const task::Tolerance& tolerance) {
  record::OutputCheck check;
  check.name = reference.name;
  check.elements = reference.numel();
  if (candidate.dtype != reference.dtype) {
    return fail(check, "output_dtype",
                fmt::format("{}: dtype {} where the reference has {}", reference.name,
                            candidate.dtype, reference.dtype));
  }
  if (candidate.shape != reference.shape) {
    return fail(check, "output_shape",
                fmt::format("{}: shape {} where the reference has {}", reference.name,
                            shape_text(candidate.shape), shape_text(reference.shape)));
  }
  if (candidate.on_device != reference.on_device) {
    return fail(check, "output_device",
                fmt::format("{}: on the {} where the reference is on the {}", reference.name,
                            candidate.on_device ? "device" : "host",
                            reference.on_device ? "device" : "host"));
  }

  const MappedFile out(candidate.path);
  const MappedFile& ref = reference_data;
  const size_t expected_bytes = static_cast<size_t>(check.elements) * dtype_size(reference.dtype);
  if (out.size() != expected_bytes || ref.size() != expected_bytes) {
    return fail(check, "harness_error", reference.name + ": tensor file has the wrong size");
  }

  const double atol = tolerance.effective_atol();
  const double rtol = tolerance.effective_rtol();
  const int64_t n = check.elements;
  const unsigned threads =
      static_cast<unsigned>(std::clamp<int64_t>(n / (1 << 20), 1, std::max(1u, std::thread::hardware_concurrency())));
  std::vector<Partial> partials(threads);
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < threads; ++t) {
    const int64_t begin = n * t / threads;
    const int64_t end = n * (t + 1) / threads;
    workers.emplace_back([&, t, begin, end] {
      partials[t] = compare_range(out.data(), ref.data(), reference.dtype, begin, end, atol, rtol);
    });
  }
  for (auto& worker : workers) worker.join();

  Partial total;
  for (const auto& p : partials) {
    total.error_squared += p.error_squared;
    total.reference_squared += p.reference_squared;
    total.max_abs = std::max(total.max_abs, p.max_abs);
    total.mismatches += p.mismatches;
    total.nonfinite += p.nonfinite;
  }
  check.max_abs_error = total.max_abs;
  check.mismatches = total.mismatches;
  check.nonfinite = total.nonfinite;
  if (total.reference_squared > 0.0) {
    check.rel_norm_error = std::sqrt(total.error_squared / total.reference_squared);
  } else {
    check.rel_norm_error = total.error_squared == 0.0 ? 0.0 : std::numeric_limits<double>::infinity();
  }

  if (check.nonfinite > 0) {
    return fail(check, "nonfinite",
                fmt::format("{}: {} elements disagree with the reference on NaN/Inf", reference.name,
                            check.nonfinite));
  }
  if (!is_floating(reference.dtype)) {
    if (check.mismatches > 0) {
      return fail(check, "output_mismatch",
                  fmt::format("{}: {} of {} elements differ (exact match required)",
                              reference.name, check.mismatches, n));
    }
  } else if (!(check.rel_norm_error <= tolerance.effective_rel_norm_rtol())) {
    return fail(check, "output_mismatch",
                fmt::format("{}: relative error {:.3e} exceeds the gate {:.3e} (max abs {:.3e}, "
                            "{} of {} elements outside atol/rtol)",
                            reference.name, check.rel_norm_error,
                            tolerance.effective_rel_norm_rtol(), check.max_abs_error,
                            check.mismatches, n));
  }
  check.passed = true;
  return {check, ""};
}

}  // namespace d2k::eval
