#include <fstream>

#include <fmt/format.h>

#include "cli/commands.h"
#include "judge/judge.h"
#include "util/text.h"

namespace d2k::cli {
namespace {

struct JudgeFlags {
  std::string task;
  std::string solution;
  std::string design;
  std::string manifest;
  std::string dry_run;
  bool correct = false;
  bool incorrect = false;
  bool json = false;
  bool no_store = false;
  std::string templates;
  judge::JudgeConfig config;
};

bool succeeded(const record::JudgeAssessment& a) {
  return a.status == record::JudgeStatus::verified ||
         a.status == record::JudgeStatus::skipped_incorrect;
}

std::string format_score(const std::optional<double>& score) {
  return score ? fmt::format("{:.1f}", *score) : "-";
}

std::string render(const record::JudgeAssessment& a) {
  std::string out =
      fmt::format("judge {} {}  {}{}\n", record::to_string(a.kind), a.task_id, a.candidate_path,
                  a.candidate_hash.empty() ? "" : "  (" + a.candidate_hash + ")");
  out += fmt::format("status: {}   attempts: {}   model: {}{}   templates: {}\n",
                     record::to_string(a.status), a.attempts, a.model.empty() ? "-" : a.model,
                     a.base_url_host.empty() ? "" : " @ " + a.base_url_host, a.template_version);
  if (!a.correctness.empty()) out += "correctness: " + a.correctness + "\n";
  if (!a.levels.empty()) {
    out += fmt::format("\n{:<5} {:>6}  {:<28} {}\n", "level", "score", "band", "evidence");
    for (const record::JudgeLevel& level : a.levels) {
      std::vector<std::string> cited;
      for (const record::JudgeEvidence& e : level.evidence) {
        cited.push_back(e.line_start == 0 ? fmt::format("\"{}\"", util::bounded(e.quote, 40))
                                          : fmt::format("{}-{}", e.line_start, e.line_end));
      }
      out += fmt::format("{:<5} {:>6.1f}  {:<28} {}\n", level.id, level.score, level.band,
                         cited.empty() ? "-" : fmt::format("{}", fmt::join(cited, ", ")));
    }
    out += fmt::format("{:<5} {:>6}\n", "JS", format_score(a.js));
  }
  if (!a.error.empty()) out += "\n" + a.error + "\n";
  if (a.usage.total_tokens > 0) {
    out += fmt::format("\ntokens: prompt {}, completion {}, total {} (cached {})\n",
                       a.usage.prompt_tokens, a.usage.completion_tokens, a.usage.total_tokens,
                       a.usage.cached_tokens);
  }
  if (a.id != 0) out += fmt::format("stored as judge assessment {}\n", a.id);
  return out;
}

void write_json_file(const std::string& path, const nlohmann::json& document) {
  std::ofstream out(path, std::ios::binary);
  out << document.dump(2) << "\n";
  if (!out) throw std::runtime_error("cannot write " + path);
}

// Flags every judge subcommand reads, declared on `judge` itself; its subcommands fall through
// to them.
void add_endpoint_options(CLI::App& app, JudgeFlags& flags) {
  app.add_option("--base-url", flags.config.base_url,
                 "OpenAI-compatible base URL, e.g. https://host/v1 (default: $D2K_JUDGE_BASE_URL)");
  app.add_option("--model", flags.config.model, "judge model (default: $D2K_JUDGE_MODEL)");
  app.add_option("--api-key", flags.config.api_key, "API key (default: $D2K_JUDGE_API_KEY)");
  app.add_option("--connect-timeout", flags.config.connect_timeout_s, "seconds (default 10)")
      ->check(CLI::PositiveNumber);
  app.add_option("--read-timeout", flags.config.read_timeout_s, "seconds (default 300)")
      ->check(CLI::PositiveNumber);
  app.add_option("--max-retries", flags.config.max_retries,
                 "retries on 429, 5xx and failed connections, per request (default 3)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--templates", flags.templates,
                 "prompt template folder (default: $D2K_JUDGE_TEMPLATES or judge/templates)");
  app.add_flag("--json", flags.json, "print the assessment record as JSON");
  app.add_flag("--no-store", flags.no_store, "do not save the assessment");
}

}  // namespace

std::function<int()> define_judge(CLI::App& app, const GlobalOptions& global) {
  app.footer(
      "Scores a final implementation (JS_impl) or an independent design (JS_design) at L1, L2 "
      "and L3 with an LLM judge whose evidence is machine-verified (docs/judge.md). Exit status: "
      "0 when every assessment is verified (or an incorrect submission is scored 0), 1 when one "
      "is unverified or failed, 2 on a usage error.");
  app.require_subcommand(1);
  auto flags = std::make_shared<JudgeFlags>();
  add_endpoint_options(app, *flags);

  CLI::App* impl = app.add_subcommand("impl", "assess a final implementation");
  impl->fallthrough();
  impl->add_option("task", flags->task, "task id or folder")->required();
  impl->add_option("--solution", flags->solution, "the solution file")
      ->required()
      ->check(CLI::ExistingFile);
  auto* correct = impl->add_flag("--correct", flags->correct,
                                 "the submission passed evaluation (default: the store decides)");
  impl->add_flag("--incorrect", flags->incorrect, "the submission failed: score 0 unjudged")
      ->excludes(correct);
  impl->add_option("--dry-run", flags->dry_run, "write the request to this file; send nothing");

  CLI::App* design = app.add_subcommand("design", "assess an independent design");
  design->fallthrough();
  design->add_option("task", flags->task, "task id or folder")->required();
  design->add_option("--design", flags->design, "model_design.json")
      ->required()
      ->check(CLI::ExistingFile);
  design->add_option("--dry-run", flags->dry_run, "write the request to this file; send nothing");

  CLI::App* batch = app.add_subcommand("batch", "assess every item of a manifest");
  batch->fallthrough();
  batch
      ->add_option("manifest", flags->manifest,
                   "JSON array of {kind, task, solution | design, correct?}")
      ->required()
      ->check(CLI::ExistingFile);

  return [flags, &global, impl, design] {
    judge::JudgeConfig config = flags->config;
    config.fill_from_environment();
    const auto templates = judge::TemplateSet::load(flags->templates.empty()
                                                        ? judge::TemplateSet::default_dir()
                                                        : std::filesystem::path(flags->templates));
    const bool dry_run = !flags->dry_run.empty();
    std::optional<store::Store> store;
    if (!flags->no_store && !dry_run) store.emplace(open_store_for_writing(global));
    judge::Judge judge(templates, config, store ? &*store : nullptr);

    if (dry_run) {
      const task::Task task = resolve_task(global, flags->task);
      write_json_file(flags->dry_run, impl->parsed()
                                          ? judge.impl_request_document(task, flags->solution)
                                          : judge.design_request_document(task, flags->design));
      fmt::print(stderr, "d2k: wrote the request to {}; nothing was sent\n", flags->dry_run);
      return kExitPassed;
    }

    std::vector<record::JudgeAssessment> results;
    if (impl->parsed()) {
      const task::Task task = resolve_task(global, flags->task);
      const judge::Correctness correctness = flags->correct     ? judge::Correctness::correct
                                             : flags->incorrect ? judge::Correctness::incorrect
                                                                : judge::Correctness::from_store;
      if (correctness != judge::Correctness::incorrect) config.require_endpoint();
      results.push_back(judge.assess_impl(task, flags->solution, correctness));
    } else if (design->parsed()) {
      config.require_endpoint();
      results.push_back(judge.assess_design(resolve_task(global, flags->task), flags->design));
    } else {
      config.require_endpoint();
      const std::filesystem::path manifest(flags->manifest);
      const auto items = judge::parse_batch_manifest(
          nlohmann::json::parse(util::read_text_file(manifest)), manifest.parent_path());
      results = judge.assess_batch(
          items, [&](const std::string& name) { return resolve_task(global, name); });
    }

    bool all_ok = true;
    nlohmann::json out = nlohmann::json::array();
    for (size_t i = 0; i < results.size(); ++i) {
      all_ok = all_ok && succeeded(results[i]);
      if (flags->json) {
        out.push_back(results[i]);
      } else {
        fmt::print("{}{}", i == 0 ? "" : "\n", render(results[i]));
      }
    }
    if (flags->json) fmt::print("{}\n", flags->manifest.empty() ? out[0].dump(2) : out.dump(2));
    return all_ok ? kExitPassed : kExitFailed;
  };
}

}  // namespace d2k::cli
