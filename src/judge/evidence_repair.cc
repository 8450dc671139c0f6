#include "judge/evidence_repair.h"

#include <fmt/format.h>

namespace d2k::judge {

void run_with_repair(ChatClient& client, const TemplateSet& templates, const JudgeRequest& request,
                     const ReplyCheck& check, int max_attempts, record::JudgeAssessment& out) {
  std::vector<ChatMessage> messages = request.messages;
  out.attempts = 0;
  out.levels.clear();
  out.js.reset();
  try {
    while (true) {
      Completion completion = client.complete(messages, request.kind);
      ++out.attempts;
      out.usage += completion.usage;
      out.response_format = to_string(client.format());
      out.response = completion.content;
      const Verification verification = check(completion.content);
      if (verification.ok()) {
        out.status = record::JudgeStatus::verified;
        out.levels = verification.levels;
        out.js = record::mean_level_score(out.levels);
        out.error.clear();
        return;
      }
      out.error = fmt::format("{}", fmt::join(verification.errors, "\n"));
      if (out.attempts >= max_attempts) {
        out.status = record::JudgeStatus::unverified;
        return;
      }
      messages.push_back({"assistant", std::move(completion.content)});
      messages.push_back(
          build_repair_message(templates, verification.errors, out.attempts + 1, max_attempts));
    }
  } catch (const JudgeError& error) {
    out.usage += error.usage();
    out.response_format = to_string(client.format());
    out.status = record::JudgeStatus::error;
    out.error = error.what();
  }
}

}  // namespace d2k::judge
