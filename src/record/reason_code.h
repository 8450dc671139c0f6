#pragma once
// Every reason code a workload's verdict can carry, with the verdict it goes with and what it
// means: the one list docs/protocol.md's table is generated from (`d2k reason-codes`), checked by
// a test.

#include <string>
#include <string_view>
#include <vector>

#include "record/result.h"

namespace d2k::record {

struct ReasonCode {
  std::string_view code;
  Verdict verdict;
  std::string_view meaning;  // Markdown, one line
};

const std::vector<ReasonCode>& reason_codes();

// The entry of `code`; nullptr for a code d2k never records.
const ReasonCode* find_reason_code(std::string_view code);

// The table as docs/protocol.md prints it: a header row, then one row per code.
std::string reason_codes_markdown();

}  // namespace d2k::record
