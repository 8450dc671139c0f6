#include "agent/run_setup.h"

#include <stdlib.h>

#include <stdexcept>

#include "agent/run_session.h"
#include "agent/workspace_stager.h"
#include "util/temp_dir.h"

namespace d2k::agent {

bool is_open(const store::AgentRun& run) {
  return run.status == kStatusPrepared || run.status == kStatusRunning;
}

std::string workspace_key(const std::filesystem::path& workspace) {
  return std::filesystem::canonical(workspace).string();
}

std::filesystem::path new_run_folder(const Environment& environment, const std::string& task_id) {
  namespace fs = std::filesystem;
  fs::path state;
  if (const auto set = lookup(environment, "XDG_STATE_HOME")) {
    state = *set;
  } else if (const auto home = lookup(environment, "HOME")) {
    state = fs::path(*home) / ".local" / "state";
  } else {
    throw std::runtime_error("neither XDG_STATE_HOME nor HOME is set: give --workspace");
  }
  return util::make_unique_dir(state / "d2k" / "agent-runs", task_id + "-");
}

PreparedRun prepare_run(store::AgentStore& store, const task::Task& task, GuidanceConfig config,
                        int turn_budget, const std::filesystem::path& workspace) {
  if (turn_budget < 1) throw std::runtime_error("the turn budget must be at least 1");
  PreparedRun prepared;
  prepared.files = stage_workspace(task, config, turn_budget, workspace);
  store::AgentRun& run = prepared.run;
  run.task_id = task.id;
  run.config = to_string(config);
  run.workspace = workspace_key(workspace);
  run.turn_budget = turn_budget;
  run.turn_source = kTurnsFromToolCalls;
  run.status = kStatusPrepared;
  store.create_run(run);
  return prepared;
}

}  // namespace d2k::agent
