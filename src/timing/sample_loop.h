#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "record/latency.h"
#include "timing/measurement_method.h"
#include "timing/timing_backend.h"

namespace d2k::timing {

// What one sample measured: its interval (the part that must last min_sample_seconds), the calls
// in it, and their per-call latency (the interval over the calls, or net of restores).
struct SampleRun {
  double duration_s = 0.0;
  int64_t calls = 0;
  double per_call_s = 0.0;
};

// Runs one sample of `size` units (calls for events, graph replays for graph); the method rounds
// `size` up to what it can run and reports what it ran.
using TakeSample = std::function<SampleRun(int64_t size)>;

// The loop every method ends with: samples of `size` until the stopping rule holds. Around each
// sample it reads the device (TimingBackend::read_device). A sample the device was held back
// during is taken again when a retake can help (held_back.h), up to
// Settings::max_held_back_retakes, and kept and marked after that. A sample shorter than
// min_sample_seconds is discarded and the size scaled up by the shortfall, up to
// Settings::max_short_retakes times; then it throws SampleTooShort. Returns the latency with
// method, stopping rule, samples and retake counts filled in and summarized.
record::Latency take_samples(const std::string& method, int64_t size, const TakeSample& take,
                             TimingBackend& backend, const Settings& settings);

}  // namespace d2k::timing
