#include "timing/graph_method.h"

#include <algorithm>
#include <memory>
#include <stdexcept>

#include "timing/batch_sizing.h"
#include "timing/eager_calls.h"
#include "timing/sample_loop.h"

namespace d2k::timing {
namespace {

using Graph = TimingBackend::Graph;

void require_graphs(const TimingBackend& backend) {
  if (!backend.supports_graphs()) {
    throw std::runtime_error("timing method 'graph' needs graph capture, which the '" +
                             backend.name() + "' timing backend does not support");
  }
}

// The replayed work. `restores` holds as many restores as `calls` has calls, and only those, so
// its replay time is what the restores add to a replay of `calls`; null without state.
struct CapturedWork {
  std::unique_ptr<Graph> calls;
  std::unique_ptr<Graph> restores;
  int64_t calls_per_graph = 0;
};

CapturedWork capture(CallTarget& target, TimingBackend& backend, const InputRotation& rotation,
                     int64_t calls) {
  CapturedWork work;
  work.calls_per_graph = calls;
  work.calls = backend.capture([&] {
    for (int64_t i = 0; i < calls; ++i) {
      if (target.has_state()) target.restore_state(rotation.set_of(i));
      target.call(rotation.set_of(i));
    }
  });
  if (target.has_state()) {
    work.restores = backend.capture([&] {
      for (int64_t i = 0; i < calls; ++i) target.restore_state(rotation.set_of(i));
    });
  }
  return work;
}

// Queues `replays` back-to-back launches of `graph` inside `interval`.
void queue_replays(Graph& graph, int64_t replays, TimingBackend::Interval& interval) {
  interval.start();
  for (int64_t r = 0; r < replays; ++r) graph.launch();
  interval.stop();
}

// One sample of `replays` replays: the pairs' interval, and the restores-only interval after it
// when there is state. Both are queued before a single synchronize, so the device never waits
// for a launch inside an interval.
SampleRun run_sample(TimingBackend& backend, const CapturedWork& work, int64_t replays,
                     const Settings& settings) {
  const auto pairs = backend.new_interval();
  const auto restores = work.restores ? backend.new_interval() : nullptr;
  const double host_start = backend.host_now_s();
  queue_replays(*work.calls, replays, *pairs);
  if (work.restores) queue_replays(*work.restores, replays, *restores);
  backend.synchronize();
  const double pairs_s = pairs->seconds();
  const double restores_s = restores ? restores->seconds() : 0.0;
  require_work_inside_intervals(backend.host_now_s() - host_start, pairs_s + restores_s, settings);
  const int64_t calls = replays * work.calls_per_graph;
  // Noise can make the restores-only replays the longer ones when a call is far cheaper than its
  // restore; a latency below zero means nothing, so it reads as zero.
  return {pairs_s, calls, std::max(0.0, pairs_s - restores_s) / static_cast<double>(calls)};
}

}  // namespace

std::string GraphMethod::name() const { return "graph"; }

std::string GraphMethod::description() const {
  return "one graph of N calls rotating over the input sets, replayed R times inside each "
         "interval of at least min_sample_seconds, per call = interval / (R * N); with state, "
         "(restore, call) pairs minus as many replays of a graph of N restores";
}

record::Latency GraphMethod::measure(CallTarget& target, TimingBackend& backend,
                                     const Settings& settings) const {
  validate(settings);
  require_graphs(backend);
  EagerCalls eager(target, backend, settings);
  eager.warm_up();
  const InputRotation& rotation = eager.rotation();
  const double estimate_s = eager.time(rotation.sets()) / static_cast<double>(rotation.sets());
  const CapturedWork work =
      capture(target, backend, rotation, calls_per_graph(settings, rotation, estimate_s));
  // An untimed replay pays the one-time cost of a graph's first launch (its upload), then one
  // sample of a single replay measures the graph for sizing.
  work.calls->launch();
  if (work.restores) work.restores->launch();
  backend.synchronize();
  const SampleRun sizing = run_sample(backend, work, 1, settings);
  record::Latency latency =
      take_samples(name(), replays_per_sample(settings, sizing.duration_s),
                   [&](int64_t replays) { return run_sample(backend, work, replays, settings); },
                   backend, settings);
  // The outputs the evaluator then checks as the last timed call's must come from a replay, not
  // from the eager calls before capture: a call that skips its work while being captured leaves
  // them poisoned.
  target.poison_outputs();
  work.calls->launch();
  backend.synchronize();
  return latency;
}

}  // namespace d2k::timing
