#pragma once
// A simulated device for the timing tests. Device time is a clock that only work advances, so a
// method's result can be compared exactly with the costs the test chose, and anything it times
// that it should not (a restore, a warm-up) shows up as a wrong number.

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "record/latency.h"
#include "timing/call_target.h"
#include "timing/timing_backend.h"

namespace d2k::timing::testing {

// Work runs the moment it is launched (as if the stream were always drained), except while a
// graph is being captured: then it is recorded, and runs again on every launch of the graph.
// Misuse a real device would punish (reading an interval before synchronizing, synchronizing
// during capture) throws std::logic_error.
class FakeBackend : public TimingBackend {
 public:
  // One piece of device work; returns how long it ran [simulated seconds].
  using Work = std::function<double()>;

  explicit FakeBackend(bool supports_graphs = true) : supports_graphs_(supports_graphs) {}

  void launch(Work work) {
    if (capturing_) {
      capturing_->push_back(std::move(work));
    } else {
      clock_s_ += work();
    }
  }
  // Work on a stream no interval brackets (a side stream): the host waits for it at the next
  // synchronize, but no interval sees it.
  void launch_untimed(double seconds) { untimed_pending_s_ += seconds; }
  // Readings read_device() returns, in order; once they run out, it returns nullopt.
  void script_readings(std::deque<record::DeviceReading> readings) {
    readings_ = std::move(readings);
  }
  double now_s() const { return clock_s_; }
  int64_t synchronizations() const { return synchronizations_; }
  int64_t intervals_created() const { return intervals_created_; }
  int64_t graphs_launched() const { return graphs_launched_; }

  std::string name() const override { return "fake"; }
  std::unique_ptr<Interval> new_interval() override {
    ++intervals_created_;
    return std::make_unique<FakeInterval>(*this);
  }
  void synchronize() override {
    require_not_capturing("synchronize");
    ++synchronizations_;
    host_waited_s_ += untimed_pending_s_;
    untimed_pending_s_ = 0.0;
  }
  double host_now_s() const override { return clock_s_ + host_waited_s_; }
  std::optional<record::DeviceReading> read_device() override {
    if (readings_.empty()) return std::nullopt;
    record::DeviceReading reading = readings_.front();
    readings_.pop_front();
    return reading;
  }
  bool supports_graphs() const override { return supports_graphs_; }
  std::unique_ptr<Graph> capture(const std::function<void()>& body) override {
    if (!supports_graphs_) throw std::logic_error("capture on a backend without graphs");
    require_not_capturing("capture");
    auto graph = std::make_unique<FakeGraph>(*this);
    capturing_ = &graph->work_;
    try {
      body();
    } catch (...) {
      capturing_ = nullptr;
      throw;
    }
    capturing_ = nullptr;
    return graph;
  }

 private:
  class FakeInterval : public Interval {
   public:
    explicit FakeInterval(FakeBackend& backend) : backend_(backend) {}
    void start() override {
      backend_.require_not_capturing("interval start");
      start_s_ = backend_.clock_s_;
      started_ = true;
      stopped_ = false;
    }
    void stop() override {
      backend_.require_not_capturing("interval stop");
      if (!started_) throw std::logic_error("interval stopped before it started");
      stop_s_ = backend_.clock_s_;
      synchronizations_at_stop_ = backend_.synchronizations_;
      stopped_ = true;
    }
    double seconds() const override {
      if (!stopped_) throw std::logic_error("interval read before it stopped");
      if (backend_.synchronizations_ == synchronizations_at_stop_) {
        throw std::logic_error("interval read before the backend synchronized past its stop");
      }
      return stop_s_ - start_s_;
    }

   private:
    FakeBackend& backend_;
    double start_s_ = 0.0;
    double stop_s_ = 0.0;
    int64_t synchronizations_at_stop_ = 0;
    bool started_ = false;
    bool stopped_ = false;
  };

  class FakeGraph : public Graph {
   public:
    explicit FakeGraph(FakeBackend& backend) : backend_(backend) {}
    void launch() override {
      backend_.require_not_capturing("graph launch");
      ++backend_.graphs_launched_;
      for (const Work& work : work_) backend_.clock_s_ += work();
    }

   private:
    friend class FakeBackend;
    FakeBackend& backend_;
    std::vector<Work> work_;
  };

  void require_not_capturing(const char* what) const {
    if (capturing_) throw std::logic_error(std::string(what) + " during graph capture");
  }

  bool supports_graphs_;
  double clock_s_ = 0.0;
  double untimed_pending_s_ = 0.0;
  double host_waited_s_ = 0.0;
  std::deque<record::DeviceReading> readings_;
  std::vector<Work>* capturing_ = nullptr;
  int64_t synchronizations_ = 0;
  int64_t intervals_created_ = 0;
  int64_t graphs_launched_ = 0;
};

// A candidate whose i-th call to run on the device (graph replays included) costs `call_cost(i)`
// simulated seconds. Given a restore cost it has state: the i-th restore to run costs
// `restore_cost(i)`, and a call that runs without a restore of its own set since the previous
// call is counted as running on stale state. It has `sets` input sets and records which set each
// call ran on.
class FakeTarget : public CallTarget {
 public:
  using Cost = std::function<double(int64_t index)>;

  FakeTarget(FakeBackend& backend, Cost call_cost)
      : backend_(backend), call_cost_(std::move(call_cost)) {}
  FakeTarget(FakeBackend& backend, Cost call_cost, Cost restore_cost)
      : backend_(backend),
        call_cost_(std::move(call_cost)),
        restore_cost_(std::move(restore_cost)) {}

  void set_input_sets(int64_t sets) { sets_ = sets; }
  int64_t input_sets() const override { return sets_; }
  void call(int64_t set) override {
    if (set < 0 || set >= sets_) throw std::logic_error("call on an input set that does not exist");
    backend_.launch([this, set] {
      if (has_state() && fresh_set_ != set) ++calls_on_stale_state_;
      fresh_set_ = -1;
      sets_called_.push_back(set);
      ++calls_since_poison_;
      return call_cost_(calls_run_++);
    });
  }
  bool has_state() const override { return static_cast<bool>(restore_cost_); }
  void poison_outputs() override {
    backend_.launch([this] {
      ++poisoned_;
      calls_since_poison_ = 0;
      return 0.0;
    });
  }
  // Outputs poisoned so far, and calls run since the last poisoning.
  int64_t poisoned() const { return poisoned_; }
  int64_t calls_since_poison() const { return calls_since_poison_; }
  void restore_state(int64_t set) override {
    if (!has_state()) throw std::logic_error("restore_state on a target without state");
    backend_.launch([this, set] {
      const double cost_s = restore_cost_(restores_run_++);
      fresh_set_ = set;
      return cost_s;
    });
  }

  // Whether the state has been restored and not yet used by a call.
  bool state_fresh() const { return fresh_set_ >= 0; }
  int64_t calls_run() const { return calls_run_; }
  const std::vector<int64_t>& sets_called() const { return sets_called_; }
  int64_t restores_run() const { return restores_run_; }
  int64_t calls_on_stale_state() const { return calls_on_stale_state_; }

 private:
  FakeBackend& backend_;
  Cost call_cost_;
  Cost restore_cost_;
  int64_t sets_ = 1;
  int64_t fresh_set_ = -1;
  std::vector<int64_t> sets_called_;
  int64_t poisoned_ = 0;
  int64_t calls_since_poison_ = 0;
  int64_t calls_run_ = 0;
  int64_t restores_run_ = 0;
  int64_t calls_on_stale_state_ = 0;
};

inline FakeTarget::Cost constant(double seconds) {
  return [seconds](int64_t) { return seconds; };
}

}  // namespace d2k::timing::testing
