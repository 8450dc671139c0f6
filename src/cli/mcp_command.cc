#include <unistd.h>

#include <ext/stdio_filebuf.h>

#include <cstdio>
#include <iostream>
#include <stdexcept>

#include "agent/client_credentials.h"
#include "agent/run_session.h"
#include "agent/run_setup.h"
#include "agent/sandboxed_command_runner.h"
#include "agent/task_submission_evaluator.h"
#include "agent/tool_set.h"
#include "cli/commands.h"
#include "mcp/dispatcher.h"
#include "mcp/stdio_server.h"
#include "store/agent_store.h"
#include "store/store.h"

namespace d2k::cli {
namespace {

struct McpFlags {
  std::string workspace;
  int64_t run = 0;
  int budget = 0;
};

// The protocol's own copy of stdout; fd 1 then points at stderr, so that nothing else this
// process (or a library in it) prints can corrupt the message stream.
int claim_stdout() {
  std::fflush(stdout);
  const int protocol = dup(STDOUT_FILENO);
  if (protocol < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) throw std::runtime_error("cannot set up stdout");
  return protocol;
}

}  // namespace

std::function<int()> define_mcp(CLI::App& app, const GlobalOptions& global) {
  app.footer(
      "Serves the agent tools (read, write, bash, submit; read and submit_design for a design "
      "run) over MCP on stdin/stdout, for the run prepared in the workspace (docs/agent.md). "
      "Agent CLIs start it; `d2k agent run` writes their configuration. A run prepared with "
      "`d2k agent prepare` is marked running while served, and finished, with its final "
      "submission selected, when the client disconnects or the turn budget is spent.");
  auto flags = std::make_shared<McpFlags>();
  app.add_option("--workspace", flags->workspace, "the workspace `d2k agent prepare` made")
      ->required()
      ->check(CLI::ExistingDirectory);
  app.add_option("--run", flags->run, "the run id (default: the newest run prepared in the workspace)");
  app.add_option("--budget", flags->budget, "turn budget, replacing the run's")->check(CLI::PositiveNumber);
  return [flags, &global] {
    // The client's credentials are in its environment, and so in this one; what the agent runs
    // (bash, a submission's workers) starts from here and must not see them.
    agent::drop_secret_variables();
    store::AgentStore agent_store = open_store_for_writing(global).agent_runs();
    const std::string workspace = agent::workspace_key(flags->workspace);
    std::optional<store::AgentRun> run = flags->run != 0 ? agent_store.load_run(flags->run)
                                                         : agent_store.latest_run_in(workspace);
    if (!run) {
      throw std::runtime_error("no agent run is prepared in " + workspace +
                               "; run `d2k agent prepare` first (with the same --store)");
    }
    if (run->workspace != workspace) {
      throw std::runtime_error("run " + std::to_string(run->id) + " belongs to workspace " + run->workspace);
    }
    if (flags->budget > 0) {
      run->turn_budget = flags->budget;
      agent_store.update_run(*run);
    }
    const auto config = agent::parse_guidance_config(run->config);
    if (!config) throw std::runtime_error("run " + std::to_string(run->id) + " has an unknown configuration " + run->config);
    const task::Task task = resolve_task(global, run->task_id);
    store::Store store = store::Store::open(store_path(global));

    agent::RunSession session(agent_store, *run, &store);
    agent::SandboxedCommandRunner runner(
        agent::SandboxedCommandRunner::agent_policy(task.dir, workspace, store_path(global)));
    agent::TaskSubmissionEvaluator evaluator(task, store, [](const std::string& line) {
      std::fprintf(stderr, "%s\n", line.c_str());
    });
    mcp::Dispatcher dispatcher({"d2k", D2K_VERSION, agent::server_instructions(*config)},
                               agent::make_tools(*config, workspace, runner, evaluator, session),
                               &session);
    __gnu_cxx::stdio_filebuf<char> protocol_buffer(claim_stdout(), std::ios::out);
    std::ostream protocol(&protocol_buffer);
    session.open();
    mcp::StdioServer(dispatcher, std::cin, protocol).run();
    session.close("client disconnected");
    return kExitPassed;
  };
}

}  // namespace d2k::cli
