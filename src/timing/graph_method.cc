#include "timing/graph_method.h"

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <vector>

#include "timing/batch_sizing.h"
#include "timing/eager_calls.h"
#include "timing/statistics.h"

namespace d2k::timing {
namespace {

using Graph = TimingBackend::Graph;
using Interval = TimingBackend::Interval;

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
};

CapturedWork capture(CallTarget& target, TimingBackend& backend, int64_t calls) {
  CapturedWork work;
  if (!target.has_state()) {
    work.calls = backend.capture([&] {
      for (int64_t i = 0; i < calls; ++i) target.call();
    });
    return work;
  }
  work.calls = backend.capture([&] {
    for (int64_t i = 0; i < calls; ++i) {
      target.restore_state();
      target.call();
    }
  });
  work.restores = backend.capture([&] {
    for (int64_t i = 0; i < calls; ++i) target.restore_state();
  });
  return work;
}

// Untimed first replays: they pay the one-time costs of a graph's first launch (uploading it to
// the device), as the eager warm-up call does for the call itself.
void warm_up(const CapturedWork& work) {
  work.calls->launch();
  if (work.restores) work.restores->launch();
}

std::unique_ptr<Interval> time_launch(TimingBackend& backend, Graph& graph) {
  auto interval = backend.new_interval();
  interval->start();
  graph.launch();
  interval->stop();
  return interval;
}

// Replay seconds of `calls` net of restores, one per sample. All replays are queued back to back
// behind the warm-up replays and read after a single synchronize, so no interval includes the
// device waiting for a launch. With state, pairs and restores-only replays alternate so that
// clock drift affects both sides of each subtraction alike.
std::vector<double> run_samples(TimingBackend& backend, const CapturedWork& work, int samples) {
  std::vector<std::unique_ptr<Interval>> call_replays;
  std::vector<std::unique_ptr<Interval>> restore_replays;
  for (int i = 0; i < samples; ++i) {
    call_replays.push_back(time_launch(backend, *work.calls));
    if (work.restores) restore_replays.push_back(time_launch(backend, *work.restores));
  }
  backend.synchronize();
  std::vector<double> replay_s;
  replay_s.reserve(samples);
  for (int i = 0; i < samples; ++i) {
    const double restores_s = work.restores ? restore_replays[i]->seconds() : 0.0;
    // Noise can make the restores-only replay the longer one when a call is far cheaper than
    // its restore; a latency below zero means nothing, so it reads as zero.
    replay_s.push_back(std::max(0.0, call_replays[i]->seconds() - restores_s));
  }
  return replay_s;
}

std::vector<double> per_call(std::vector<double> replay_s, int64_t calls) {
  for (double& seconds : replay_s) seconds /= static_cast<double>(calls);
  return replay_s;
}

}  // namespace

std::string GraphMethod::name() const { return "graph"; }

std::string GraphMethod::description() const {
  return "replays of one graph of N calls lasting at least min_sample_seconds, per call = replay "
         "/ N; with state, (restore, call) pairs minus a graph of N restores";
}

record::Latency GraphMethod::measure(CallTarget& target, TimingBackend& backend,
                                     const Settings& settings) const {
  validate(settings);
  require_graphs(backend);
  EagerCalls eager(target, backend);
  eager.warm_up();
  const double estimate_s = eager.estimate(settings.estimate_calls);
  const int64_t calls_per_graph = calls_per_sample(settings, estimate_s);
  const CapturedWork work = capture(target, backend, calls_per_graph);
  warm_up(work);
  const std::vector<double> replay_s = run_samples(backend, work, settings.samples);
  return summarize(name(), calls_per_graph, per_call(replay_s, calls_per_graph));
}

}  // namespace d2k::timing
