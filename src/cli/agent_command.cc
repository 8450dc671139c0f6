#include <filesystem>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "agent/agent_launch.h"
#include "agent/agent_process.h"
#include "agent/agent_usage.h"
#include "agent/client_credentials.h"
#include "agent/instructions.h"
#include "agent/run_outcome.h"
#include "agent/run_session.h"
#include "agent/run_setup.h"
#include "cli/commands.h"
#include "store/agent_store.h"
#include "store/store.h"
#include "util/text.h"

namespace d2k::cli {
namespace {

namespace fs = std::filesystem;

struct AgentFlags {
  std::string task;
  std::string config;
  std::string workspace;
  std::string agent;
  std::string model;
  int budget = agent::kDefaultTurnBudget;
  double timeout = 4 * 3600.0;
  int64_t run = 0;
  bool json = false;
};

const std::vector<std::string> kConfigNames{"none", "L1", "L1+L2", "L1+L2+L3", "design"};

std::string speedup_text(const std::optional<double>& speedup) {
  return speedup ? fmt::format("{:.3f}x", *speedup) : "n/a";
}

// How much of a client's last output an agent_unavailable run keeps as its reason.
constexpr size_t kReasonLimit = 2000;

// How the client starts the tool server of run `run_id`: this binary, the same store and tasks.
std::vector<std::string> mcp_command(const GlobalOptions& global, const store::AgentRun& run) {
  std::vector<std::string> argv{fs::read_symlink("/proc/self/exe").string(), "--store",
                                fs::absolute(store_path(global)).string()};
  if (!global.tasks_root.empty()) {
    argv.push_back("--tasks");
    argv.push_back(fs::absolute(global.tasks_root).string());
  }
  for (const std::string& arg : {std::string("mcp"), std::string("--workspace"), run.workspace,
                                 std::string("--run"), std::to_string(run.id)}) {
    argv.push_back(arg);
  }
  return argv;
}

std::vector<std::string> tool_names(agent::GuidanceConfig config) {
  if (config == agent::GuidanceConfig::design) return {"read", "submit_design"};
  return {"read", "write", "bash", "submit"};
}

nlohmann::json outcome_json(const store::AgentRun& run, const agent::RunOutcome& outcome) {
  nlohmann::json submissions = nlohmann::json::array();
  for (const auto& submission : outcome.submissions) {
    nlohmann::json entry = submission.summary;
    entry["turn"] = submission.turn;
    submissions.push_back(entry);
  }
  nlohmann::json run_json{{"id", run.id}, {"task", run.task_id}, {"config", run.config},
                          {"agent", run.agent}, {"model", run.model}, {"workspace", run.workspace},
                          {"status", run.status}, {"turn_budget", run.turn_budget},
                          {"turns_used", run.turns_used}, {"turn_source", run.turn_source}};
  run_json["prompt_tokens"] = run.prompt_tokens ? nlohmann::json(*run.prompt_tokens) : nlohmann::json(nullptr);
  run_json["completion_tokens"] = run.completion_tokens ? nlohmann::json(*run.completion_tokens) : nlohmann::json(nullptr);
  run_json["cost_usd"] = run.cost_usd ? nlohmann::json(*run.cost_usd) : nlohmann::json(nullptr);
  run_json["baseline_evaluation_id"] = run.baseline_evaluation_id ? nlohmann::json(*run.baseline_evaluation_id) : nlohmann::json(nullptr);
  run_json["final_evaluation_id"] = run.final_evaluation_id ? nlohmann::json(*run.final_evaluation_id) : nlohmann::json(nullptr);
  nlohmann::json result{{"run", run_json}, {"submissions", submissions}};
  result["final_submission"] = outcome.final_index ? nlohmann::json(*outcome.final_index + 1) : nlohmann::json(nullptr);
  return result;
}

void print_outcome(const store::AgentRun& run, const agent::RunOutcome& outcome) {
  fmt::print("run {}: task {}, config {}, agent {}\n", run.id, run.task_id, run.config,
             run.agent.empty() ? "(external)" : run.agent);
  fmt::print("workspace: {}\n", run.workspace);
  fmt::print("turns: {} of {} ({})\n", run.turns_used, run.turn_budget, run.turn_source);
  if (run.prompt_tokens || run.completion_tokens) {
    fmt::print("tokens: {} prompt, {} completion\n", run.prompt_tokens.value_or(0), run.completion_tokens.value_or(0));
  }
  if (outcome.submissions.empty()) fmt::print("submissions: none\n");
  for (size_t i = 0; i < outcome.submissions.size(); ++i) {
    const auto& [turn, summary] = outcome.submissions[i];
    std::string why;
    for (const auto& reason : summary.ineligible_because) why += (why.empty() ? "" : "; ") + reason;
    fmt::print("  #{} turn {} evaluation {}: {} (geomean speedup {}){}\n", i + 1, turn,
               summary.evaluation_id, summary.eligible ? "eligible" : "not eligible",
               speedup_text(summary.geomean_speedup), why.empty() ? "" : ": " + util::bounded(why, 300));
  }
  if (outcome.final_index) {
    const auto& summary = outcome.submissions[*outcome.final_index].summary;
    fmt::print("final: submission #{} (evaluation {}), geomean speedup {} over the baseline (evaluation {})\n",
               *outcome.final_index + 1, summary.evaluation_id, speedup_text(summary.geomean_speedup),
               summary.baseline_evaluation_id);
  } else {
    fmt::print("final: none (no eligible submission)\n");
  }
}

// Selects the final submission, records it on the run and prints the outcome.
int finish(const GlobalOptions& global, store::AgentStore& agent_store, store::AgentRun& run, bool json) {
  const store::Store store = store::Store::open(store_path(global));
  const agent::RunOutcome outcome = agent::record_final_submission(agent_store, store, run);
  if (json) {
    fmt::print("{}\n", outcome_json(run, outcome).dump(2));
  } else {
    print_outcome(run, outcome);
  }
  if (run.status == agent::kStatusAgentUnavailable) return kExitUsage;
  return outcome.final_index ? kExitPassed : kExitFailed;
}

// The client cannot authenticate: nothing is staged or recorded.
int report_unavailable(const agent::AgentSpec& spec, const std::string& reason, bool json) {
  fmt::print(stderr, "d2k: agent_unavailable: {}\n", reason);
  if (json) {
    fmt::print("{}\n", nlohmann::json{{"status", agent::kStatusAgentUnavailable},
                                      {"agent", spec.name()}, {"reason", reason}}.dump(2));
  }
  return kExitUsage;
}

// The run's status once its agent process ended. A client that exited without a single tool
// call reaching d2k, other than cleanly, never got to work (no login, an unreachable API): the
// run is agent_unavailable and not scored.
std::string end_status(const agent::AgentExit& exit, int tool_calls) {
  if (tool_calls == 0 && !(exit.exited && exit.status == 0)) return agent::kStatusAgentUnavailable;
  if (exit.timed_out) return agent::kStatusTimedOut;
  return exit.exited ? agent::kStatusFinished : agent::kStatusFailed;
}

void add_task_options(CLI::App& sub, AgentFlags& flags) {
  sub.fallthrough();
  sub.add_option("task", flags.task, "task id or folder")->required();
  sub.add_option("--config", flags.config, "guidance configuration")
      ->required()
      ->check(CLI::IsMember(kConfigNames));
  sub.add_option("--budget", flags.budget, "turn budget")->check(CLI::PositiveNumber)->capture_default_str();
}

}  // namespace

std::function<int()> define_agent(CLI::App& app, const GlobalOptions& global) {
  app.footer(
      "Runs coding agents on a task through d2k's MCP tools, with a turn budget, every step "
      "recorded in the store, and the final submission selected as in the paper's §3.1 "
      "(docs/agent.md). Exit status: 0 when a run has a final (eligible) submission or a "
      "workspace was prepared, 1 when no submission is eligible, 2 on a usage or set-up error, "
      "including a client that has no credentials or never got to work (agent_unavailable).");
  app.require_subcommand(1);
  auto flags = std::make_shared<AgentFlags>();

  CLI::App* prepare = app.add_subcommand("prepare", "stage a workspace and record a run for it");
  add_task_options(*prepare, *flags);
  prepare->add_option("--workspace", flags->workspace, "the new workspace folder")->required();
  prepare->add_flag("--json", flags->json, "print the run and its files as JSON");

  CLI::App* run = app.add_subcommand("run", "prepare a workspace and run an agent on it");
  add_task_options(*run, *flags);
  run->add_option("--agent", flags->agent, "claude, codex, or the command line of another agent")->required();
  run->add_option("--model", flags->model, "model name passed to the agent CLI");
  run->add_option("--timeout", flags->timeout, "wall-clock limit in seconds")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  run->add_option("--workspace", flags->workspace,
                  "the new workspace folder (default: a fresh one in $XDG_STATE_HOME/d2k/agent-runs)");
  run->add_flag("--json", flags->json, "print the outcome as JSON");

  CLI::App* select = app.add_subcommand("select", "select and record the final submission of a run");
  select->fallthrough();
  select->add_option("run", flags->run, "run id")->required();
  select->add_flag("--json", flags->json, "print the outcome as JSON");

  return [flags, &global, prepare, run] {
    store::AgentStore agent_store = open_store_for_writing(global).agent_runs();
    if (!prepare->parsed() && !run->parsed()) {
      auto existing = agent_store.load_run(flags->run);
      if (!existing) throw std::runtime_error("no agent run " + std::to_string(flags->run));
      // Selecting by hand ends an externally driven run that is still open.
      if (existing->agent.empty() && agent::is_open(*existing)) {
        existing->status = agent::kStatusFinished;
        existing->finished_at = util::utc_now_iso8601();
      }
      return finish(global, agent_store, *existing, flags->json);
    }
    const task::Task task = resolve_task(global, flags->task);
    const agent::GuidanceConfig config = *agent::parse_guidance_config(flags->config);
    const agent::AgentSpec spec = agent::AgentSpec::parse(
        flags->agent, flags->model.empty() ? std::nullopt : std::optional<std::string>(flags->model));
    const agent::Environment environment = agent::current_environment();
    if (run->parsed()) {
      agent::require_agent_cli(spec);
      const agent::CredentialCheck credentials = agent::check_credentials(spec.kind, environment);
      if (!credentials.found) return report_unavailable(spec, credentials.missing, flags->json);
      fmt::print(stderr, "d2k: {} authenticates with {}\n", spec.name(), credentials.source);
    }
    fs::path workspace = flags->workspace;
    fs::path run_dir;
    if (workspace.empty()) {
      run_dir = agent::new_run_folder(environment, task.id);
      workspace = run_dir / "workspace";
    } else {
      workspace = fs::absolute(workspace).lexically_normal();
      run_dir = workspace.parent_path() / (workspace.filename().string() + ".agent");
    }
    agent::PreparedRun prepared = agent::prepare_run(agent_store, task, config, flags->budget, workspace);
    store::AgentRun& record = prepared.run;
    if (prepare->parsed()) {
      if (flags->json) {
        fmt::print("{}\n", nlohmann::json{{"run", record.id}, {"workspace", record.workspace},
                                          {"config", record.config}, {"files", prepared.files}}
                               .dump(2));
      } else {
        fmt::print("run {}: workspace {} ({} files) for {} with config {}\n", record.id,
                   record.workspace, prepared.files.size(), task.id, record.config);
        for (const auto& file : prepared.files) fmt::print("  {}\n", file);
      }
      return kExitPassed;
    }

    agent::LaunchRequest request{spec,       record.workspace, run_dir, mcp_command(global, record),
                                 tool_names(config), agent::start_prompt(config), record.turn_budget,
                                 environment};
    const agent::LaunchPlan plan = agent::plan_launch(request);
    record.agent = spec.name();
    record.model = flags->model;
    record.status = agent::kStatusRunning;
    agent_store.update_run(record);
    fmt::print(stderr, "d2k: run {}: starting {} in {} (logs in {})\n", record.id, record.agent,
               record.workspace, run_dir.string());
    const fs::path stdout_log = run_dir / "agent.stdout";
    const agent::AgentExit exit =
        agent::run_agent(plan, record.workspace, flags->timeout, stdout_log, run_dir / "agent.stderr");

    // The tool server updated turns and the baseline while the agent ran.
    store::AgentRun finished = *agent_store.load_run(record.id);
    const int tool_calls = finished.turns_used;
    const std::string output = util::read_text_file(stdout_log);
    const agent::AgentUsage usage = spec.kind == agent::AgentKind::claude  ? agent::parse_claude_usage(output)
                                    : spec.kind == agent::AgentKind::codex ? agent::parse_codex_usage(output)
                                                                           : agent::parse_command_usage(output);
    finished.prompt_tokens = usage.prompt_tokens;
    finished.completion_tokens = usage.completion_tokens;
    finished.cost_usd = usage.cost_usd;
    if (usage.turns) {
      finished.turns_used = *usage.turns;
      finished.turn_source = agent::kTurnsFromTranscript;
    }
    finished.finished_at = util::utc_now_iso8601();
    finished.status = end_status(exit, tool_calls);
    nlohmann::json ended_payload{{"timed_out", exit.timed_out}, {"exited", exit.exited},
                                 {"status", exit.status}, {"seconds", exit.seconds}};
    const std::string how = exit.timed_out ? "reached the time limit"
                            : exit.exited  ? fmt::format("exited with status {}", exit.status)
                                           : fmt::format("was killed by signal {}", exit.status);
    fmt::print(stderr, "d2k: run {}: the agent {} after {:.1f} s\n", finished.id, how, exit.seconds);
    if (finished.status == agent::kStatusAgentUnavailable) {
      // Clients say why on either stream (Codex: a JSON event on stdout).
      ended_payload["reason"] = util::tail(output, kReasonLimit / 2) + "\n" +
                                util::tail(util::read_text_file(run_dir / "agent.stderr"), kReasonLimit / 2);
      fmt::print(stderr, "d2k: run {}: agent_unavailable: {} {} before any tool call; its last output:\n{}\n",
                 finished.id, finished.agent, how, ended_payload["reason"].get<std::string>());
    }
    store::AgentEvent ended{finished.id, 0, "", finished.turns_used, "agent", "", ended_payload, std::nullopt};
    agent_store.append_event(ended);
    return finish(global, agent_store, finished, flags->json);
  };
}

}  // namespace d2k::cli
