#pragma once
// `d2k judge` below the command line: builds the request for a candidate, decides correctness
// for implementations, runs the conversation with evidence repair, and stores the assessment.
// docs/judge.md describes the whole procedure.

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "judge/batch_manifest.h"
#include "judge/chat_client.h"
#include "judge/evidence_repair.h"
#include "judge/http_transport.h"
#include "judge/template_set.h"
#include "record/judge_assessment.h"
#include "store/store.h"
#include "task/task.h"

namespace d2k::judge {

struct JudgeConfig {
  std::string
      base_url;  // "https://host/v1"; chat completions are POSTed to base_url/chat/completions
  std::string model;
  std::string api_key;
  double connect_timeout_s = 10.0;
  double read_timeout_s = 300.0;
  int max_retries = 3;
  int max_attempts = kDefaultMaxAttempts;
  std::function<void(double seconds)> sleep;  // between retries; empty: really sleep

  // Fills an empty base_url, model and api_key from D2K_JUDGE_BASE_URL, D2K_JUDGE_MODEL and
  // D2K_JUDGE_API_KEY.
  void fill_from_environment();
  // Throws std::invalid_argument unless base_url and model are set and the URL parses.
  void require_endpoint() const;
};

// How the correctness of a final implementation is known. §3.3: an incorrect one scores 0 at
// every level without being judged.
enum class Correctness {
  from_store,  // the newest stored evaluation of the same file content covering every workload
  correct,
  incorrect,
};

// The newest evaluation in `store` of the task's implementation whose content hash is
// `impl_hash` and which covers every workload of the task.
std::optional<store::EvaluationSummary> find_final_evaluation(const store::Store& store,
                                                              const task::Task& task,
                                                              const std::string& impl_hash);

class Judge {
 public:
  // `store` may be null: nothing is saved, and correctness must then be given.
  Judge(TemplateSet templates, JudgeConfig config, store::Store* store);

  // Throws for inputs that cannot be judged (a missing file, a task without guidance, no stored
  // evaluation to decide correctness); endpoint failures come back as status `error`.
  record::JudgeAssessment assess_impl(const task::Task& task, const std::filesystem::path& solution,
                                      Correctness correctness);
  record::JudgeAssessment assess_design(const task::Task& task,
                                        const std::filesystem::path& design);
  // Every item in order. An item that throws is recorded (and stored) as status `error` with
  // the message, and the others still run.
  std::vector<record::JudgeAssessment> assess_batch(
      const std::vector<BatchItem>& items,
      const std::function<task::Task(const std::string&)>& resolve_task);

  // The complete request, for a reviewer, with no network call (`--dry-run`): `request` is the
  // exact body; `messages_by_line` repeats each message split into lines.
  nlohmann::json impl_request_document(const task::Task& task,
                                       const std::filesystem::path& solution) const;
  nlohmann::json design_request_document(const task::Task& task,
                                         const std::filesystem::path& design) const;

 private:
  record::JudgeAssessment start(const task::Task& task, record::JudgeKind kind,
                                const std::filesystem::path& candidate) const;
  nlohmann::json request_document(const record::JudgeAssessment& base,
                                  const JudgeRequest& request) const;
  nlohmann::json endpoint_url() const;  // null when no base URL is set
  ChatClient& client();
  void save(record::JudgeAssessment& assessment);

  TemplateSet templates_;
  JudgeConfig config_;
  store::Store* store_;
  std::unique_ptr<HttpTransport> transport_;  // made at the first request
  std::unique_ptr<ChatClient> client_;
};

}  // namespace d2k::judge
