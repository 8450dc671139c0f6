#pragma once
// The static gate of an evaluation (docs/protocol.md, "Implementation validity"): every check
// that reads a candidate without running it. The evaluator runs it before any worker starts.

#include <filesystem>
#include <vector>

#include "record/finding.h"
#include "task/implementation_rules.h"
#include "task/task.h"

namespace d2k::validity {

// A Python candidate is analyzed with `python_analyzer`'s script; a native one by its includes
// and by `library`, its built object (empty when the build failed).
std::vector<record::Finding> check_candidate(const std::filesystem::path& source,
                                             task::Language language,
                                             const std::filesystem::path& library,
                                             const task::ImplementationRules& rules);

}  // namespace d2k::validity
