#include "agent/run_session.h"

#include <fmt/format.h>

#include "agent/run_outcome.h"
#include "agent/run_setup.h"
#include "util/text.h"

namespace d2k::agent {
namespace {

// Results are kept whole up to this size; longer ones (file dumps, logs) are cut in the record.
constexpr size_t kRecordedTextLimit = 64 * 1024;

}  // namespace

std::optional<mcp::ToolResult> RunSession::before_call(const std::string& tool,
                                                       const nlohmann::json& arguments) {
  if (run_.turns_used >= run_.turn_budget) {
    record("refused", tool, {{"arguments", arguments}});
    return mcp::ToolResult::error(fmt::format(
        "The turn budget of this run ({} turns) is spent; no more tool calls are served. Your "
        "eligible submission with the highest speedup is your final one.",
        run_.turn_budget));
  }
  ++run_.turns_used;
  store_.update_run(run_);
  record("call", tool, {{"arguments", arguments}});
  return std::nullopt;
}

void RunSession::after_call(const std::string& tool, const nlohmann::json&,
                            const mcp::ToolResult& result) {
  record("result", tool, {{"is_error", result.is_error}, {"text", util::bounded(result.text, kRecordedTextLimit)}});
  if (run_.turns_used >= run_.turn_budget) close("budget spent");
}

void RunSession::record(const std::string& kind, const std::string& tool,
                        const nlohmann::json& payload, std::optional<int64_t> evaluation_id) {
  store::AgentEvent event{run_.id, 0, "", run_.turns_used, kind, tool, payload, evaluation_id};
  store_.append_event(event);
}

void RunSession::set_baseline(int64_t evaluation_id) {
  run_.baseline_evaluation_id = evaluation_id;
  store_.update_run(run_);
}

void RunSession::open() {
  if (!externally_driven()) return;
  run_.status = kStatusRunning;
  run_.finished_at.reset();
  store_.update_run(run_);
}

void RunSession::close(const std::string& reason) {
  if (!externally_driven() || !is_open(run_) || evaluations_ == nullptr) return;
  run_.status = kStatusFinished;
  run_.finished_at = util::utc_now_iso8601();
  record(kClosedEvent, "", {{"reason", reason}});
  record_final_submission(store_, *evaluations_, run_);
}

}  // namespace d2k::agent
