#pragma once
// A new agent run: its workspace staged and its row in the store, before any agent starts.
// `d2k mcp` later finds the run by its workspace, so no file the agent could edit says which
// task or budget it has.

#include <filesystem>
#include <string>
#include <vector>

#include "agent/guidance_config.h"
#include "store/agent_store.h"
#include "task/task.h"

namespace d2k::agent {

inline constexpr const char* kStatusPrepared = "prepared";
inline constexpr const char* kStatusRunning = "running";
inline constexpr const char* kStatusFinished = "finished";
inline constexpr const char* kStatusTimedOut = "timed_out";
inline constexpr const char* kStatusFailed = "failed";

struct PreparedRun {
  store::AgentRun run;
  std::vector<std::string> files;  // workspace-relative, sorted
};

PreparedRun prepare_run(store::AgentStore& store, const task::Task& task, GuidanceConfig config,
                        int turn_budget, const std::filesystem::path& workspace);

// The form agent_runs.workspace keeps: absolute, symlinks resolved.
std::string workspace_key(const std::filesystem::path& workspace);

}  // namespace d2k::agent
