#pragma once
// The judge conversation with evidence repair: ask, verify the reply, and on failure ask again
// with the exact verification errors, up to a fixed number of attempts; then give up rather than
// guess.

#include <functional>
#include <string_view>

#include "judge/chat_client.h"
#include "judge/judge_request.h"
#include "judge/template_set.h"
#include "judge/verification.h"
#include "record/judge_assessment.h"

namespace d2k::judge {

// The paper's procedure: the first request and at most two repairs.
inline constexpr int kDefaultMaxAttempts = 3;

using ReplyCheck = std::function<Verification(std::string_view reply)>;

// Runs `request` through `client`. Sets in `out`: status (verified, unverified or error),
// levels and js (verified only), response (the last reply), error (the last verification
// errors, or the endpoint's failure), attempts, usage and response_format.
void run_with_repair(ChatClient& client, const TemplateSet& templates, const JudgeRequest& request,
                     const ReplyCheck& check, int max_attempts, record::JudgeAssessment& out);

}  // namespace d2k::judge
