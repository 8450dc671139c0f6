#include "judge/judge.h"

#include <cstdlib>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "judge/endpoint.h"
#include "judge/response_schema.h"
#include "judge/source_listing.h"
#include "judge/task_material.h"
#include "judge/verification.h"
#include "util/hash.h"
#include "util/text.h"

namespace d2k::judge {
namespace {

using nlohmann::json;

void fill(std::string& field, const char* variable) {
  if (!field.empty()) return;
  if (const char* value = std::getenv(variable); value != nullptr) field = value;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = text.find('\n', start);
    if (end == std::string::npos) {
      if (start < text.size()) lines.push_back(text.substr(start));
      break;
    }
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

// §3.3: every level 0, nothing cited, the judge not asked.
std::vector<record::JudgeLevel> zero_levels() {
  std::vector<record::JudgeLevel> levels;
  for (std::string_view id : kLevelIds) {
    levels.push_back({.id = std::string(id),
                      .score = 0.0,
                      .band = "absent",
                      .evidence = {},
                      .reason = "incorrect final submission: not judged, scored 0",
                      .alternative_design = "none"});
  }
  return levels;
}

}  // namespace

void JudgeConfig::fill_from_environment() {
  fill(base_url, "D2K_JUDGE_BASE_URL");
  fill(model, "D2K_JUDGE_MODEL");
  fill(api_key, "D2K_JUDGE_API_KEY");
}

void JudgeConfig::require_endpoint() const {
  if (base_url.empty()) {
    throw std::invalid_argument("no judge endpoint: give --base-url or set D2K_JUDGE_BASE_URL");
  }
  if (model.empty()) {
    throw std::invalid_argument("no judge model: give --model or set D2K_JUDGE_MODEL");
  }
  Endpoint::parse(base_url);
}

std::optional<store::EvaluationSummary> find_final_evaluation(const store::Store& store,
                                                              const task::Task& task,
                                                              const std::string& impl_hash) {
  store::Query query;
  query.task = task.id;
  query.impl_hash = impl_hash;
  query.limit = 0;
  for (const store::EvaluationSummary& summary : store.evaluations().list(query)) {
    // A run limited to one workload (`d2k eval --workload`) does not show the whole
    // submission correct or incorrect.
    if (summary.workloads_total == static_cast<int>(task.workloads.size())) return summary;
  }
  return std::nullopt;
}

Judge::Judge(TemplateSet templates, JudgeConfig config, store::Store* store)
    : templates_(std::move(templates)), config_(std::move(config)), store_(store) {}

record::JudgeAssessment Judge::start(const task::Task& task, record::JudgeKind kind,
                                     const std::filesystem::path& candidate) const {
  record::JudgeAssessment a;
  a.task_id = task.id;
  a.kind = kind;
  a.candidate_path = candidate.string();
  a.candidate_hash = util::hash_file(candidate);
  a.template_version = templates_.version(kind);
  a.template_hash = templates_.hash(kind);
  a.model = config_.model;
  if (!config_.base_url.empty()) a.base_url_host = Endpoint::parse(config_.base_url).host_label();
  return a;
}

ChatClient& Judge::client() {
  if (!client_) {
    config_.require_endpoint();
    transport_ =
        std::make_unique<HttpTransport>(Endpoint::parse(config_.base_url),
                                        HttpOptions{.api_key = config_.api_key,
                                                    .connect_timeout_s = config_.connect_timeout_s,
                                                    .read_timeout_s = config_.read_timeout_s});
    client_ =
        std::make_unique<ChatClient>(*transport_, ClientOptions{.model = config_.model,
                                                                .max_retries = config_.max_retries,
                                                                .sleep = config_.sleep});
  }
  return *client_;
}

void Judge::save(record::JudgeAssessment& assessment) {
  if (store_ != nullptr) store_->judge_assessments().save(assessment);
}

record::JudgeAssessment Judge::assess_impl(const task::Task& task,
                                           const std::filesystem::path& solution,
                                           Correctness correctness) {
  record::JudgeAssessment a = start(task, record::JudgeKind::impl, solution);
  bool correct = correctness == Correctness::correct;
  if (correctness == Correctness::from_store) {
    if (store_ == nullptr) {
      throw std::invalid_argument("without a store, give --correct or --incorrect");
    }
    const auto evaluation = find_final_evaluation(*store_, task, a.candidate_hash);
    if (!evaluation) {
      throw std::invalid_argument(fmt::format(
          "no stored evaluation of {} (content hash {}) for task {} covers all {} workloads: run "
          "`d2k eval {} --solution {}` first, or give --correct or --incorrect",
          a.candidate_path, a.candidate_hash, task.id, task.workloads.size(), task.id,
          a.candidate_path));
    }
    correct = evaluation->passed;
    a.correctness =
        fmt::format("evaluation {} ({})", evaluation->id, evaluation->passed ? "passed" : "failed");
  } else {
    a.correctness = correct ? "given: correct" : "given: incorrect";
  }
  if (!correct) {
    a.status = record::JudgeStatus::skipped_incorrect;
    a.levels = zero_levels();
    a.js = 0.0;
    save(a);
    return a;
  }
  const SourceListing listing(util::read_text_file(solution), language_of(solution));
  const JudgeRequest request = build_impl_request(templates_, TaskMaterial::read(task), listing);
  ChatClient& chat = client();
  run_with_repair(
      chat, templates_, request,
      [&](std::string_view reply) { return verify_impl_reply(reply, listing); },
      config_.max_attempts, a);
  save(a);
  return a;
}

record::JudgeAssessment Judge::assess_design(const task::Task& task,
                                             const std::filesystem::path& design) {
  record::JudgeAssessment a = start(task, record::JudgeKind::design, design);
  const DesignText text(util::read_text_file(design));
  const JudgeRequest request = build_design_request(templates_, TaskMaterial::read(task), text);
  ChatClient& chat = client();
  run_with_repair(
      chat, templates_, request,
      [&](std::string_view reply) { return verify_design_reply(reply, text); },
      config_.max_attempts, a);
  save(a);
  return a;
}

std::vector<record::JudgeAssessment> Judge::assess_batch(
    const std::vector<BatchItem>& items,
    const std::function<task::Task(const std::string&)>& resolve_task) {
  std::vector<record::JudgeAssessment> results;
  for (const BatchItem& item : items) {
    try {
      const task::Task task = resolve_task(item.task);
      if (item.kind == record::JudgeKind::design) {
        results.push_back(assess_design(task, item.candidate));
      } else {
        const Correctness correctness = !item.correct   ? Correctness::from_store
                                        : *item.correct ? Correctness::correct
                                                        : Correctness::incorrect;
        results.push_back(assess_impl(task, item.candidate, correctness));
      }
    } catch (const std::exception& error) {
      record::JudgeAssessment failed;
      failed.task_id = item.task;
      failed.kind = item.kind;
      failed.candidate_path = item.candidate.string();
      failed.template_version = templates_.version(item.kind);
      failed.template_hash = templates_.hash(item.kind);
      failed.model = config_.model;
      failed.status = record::JudgeStatus::error;
      failed.error = error.what();
      save(failed);
      results.push_back(std::move(failed));
    }
  }
  return results;
}

json Judge::endpoint_url() const {
  if (config_.base_url.empty()) return nullptr;
  const Endpoint endpoint = Endpoint::parse(config_.base_url);
  return endpoint.scheme_host_port() + endpoint.chat_completions_path();
}

json Judge::request_document(const record::JudgeAssessment& base,
                             const JudgeRequest& request) const {
  json by_line = json::array();
  for (const ChatMessage& message : request.messages) {
    by_line.push_back({{"role", message.role}, {"lines", split_lines(message.content)}});
  }
  const std::string model =
      config_.model.empty() ? "<set --model or D2K_JUDGE_MODEL>" : config_.model;
  return {
      {"about",
       "A d2k judge request written by --dry-run and not sent. `request` is the exact body "
       "POSTed to the endpoint; `messages_by_line` repeats each message split into lines for "
       "reading. The prompt templates are judge/templates/; docs/judge.md explains them."},
      {"kind", record::to_string(base.kind)},
      {"task", base.task_id},
      {"candidate_path", base.candidate_path},
      {"candidate_hash", base.candidate_hash},
      {"template_version", base.template_version},
      {"template_hash", base.template_hash},
      {"endpoint", endpoint_url()},
      {"request", ChatClient::request_body(model, request.messages, request.kind,
                                           ResponseFormat::json_schema)},
      {"messages_by_line", std::move(by_line)},
  };
}

json Judge::impl_request_document(const task::Task& task,
                                  const std::filesystem::path& solution) const {
  const SourceListing listing(util::read_text_file(solution), language_of(solution));
  return request_document(start(task, record::JudgeKind::impl, solution),
                          build_impl_request(templates_, TaskMaterial::read(task), listing));
}

json Judge::design_request_document(const task::Task& task,
                                    const std::filesystem::path& design) const {
  const DesignText text(util::read_text_file(design));
  return request_document(start(task, record::JudgeKind::design, design),
                          build_design_request(templates_, TaskMaterial::read(task), text));
}

}  // namespace d2k::judge
