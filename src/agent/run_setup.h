#pragma once
// A new agent run: its workspace staged and its row in the store, before any agent starts.
// `d2k mcp` later finds the run by its workspace, so no file the agent could edit says which
// task or budget it has.

#include <filesystem>
#include <string>
#include <vector>

#include "agent/client_credentials.h"
#include "agent/guidance_config.h"
#include "store/agent_store.h"
#include "task/task.h"

namespace d2k::agent {

// A run is open while prepared or running; it ends finished, timed out or failed, or as
// agent_unavailable when its client never got to work (no tool call reached d2k): a run that
// is not scored.
inline constexpr const char* kStatusPrepared = "prepared";
inline constexpr const char* kStatusRunning = "running";
inline constexpr const char* kStatusFinished = "finished";
inline constexpr const char* kStatusTimedOut = "timed_out";
inline constexpr const char* kStatusFailed = "failed";
inline constexpr const char* kStatusAgentUnavailable = "agent_unavailable";

bool is_open(const store::AgentRun& run);

struct PreparedRun {
  store::AgentRun run;
  std::vector<std::string> files;  // workspace-relative, sorted
};

PreparedRun prepare_run(store::AgentStore& store, const task::Task& task, GuidanceConfig config,
                        int turn_budget, const std::filesystem::path& workspace);

// The form agent_runs.workspace keeps: absolute, symlinks resolved.
std::string workspace_key(const std::filesystem::path& workspace);

// A new folder for a run's files when no workspace is given:
// $XDG_STATE_HOME/d2k/agent-runs/<task>-XXXXXX (XDG_STATE_HOME defaults to ~/.local/state).
// Not the temp folder: it is shared and cleaned, and clients refuse to keep helpers there.
std::filesystem::path new_run_folder(const Environment& environment, const std::string& task_id);

}  // namespace d2k::agent
