#include "validity/candidate_check.h"

#include "validity/native_analyzer.h"
#include "validity/python_analyzer.h"

namespace d2k::validity {

std::vector<record::Finding> check_candidate(const std::filesystem::path& source,
                                             task::Language language,
                                             const std::filesystem::path& library,
                                             const task::ImplementationRules& rules) {
  if (language == task::Language::python) return PythonAnalyzer().analyze(source, rules);
  return analyze_native(source, library, rules);
}

}  // namespace d2k::validity
