#pragma once
// Static analysis of a Python candidate against a task's rules (docs/protocol.md,
// "Implementation validity"). The analysis is analyze_python.py, run by a separate, short-lived
// interpreter in isolated mode (-I -S): it parses the candidate with `ast` and never imports it,
// so no candidate code runs, and d2k's own process never parses untrusted Python.

#include <filesystem>
#include <vector>

#include "record/finding.h"
#include "task/implementation_rules.h"

namespace d2k::validity {

class PythonAnalyzer {
 public:
  // The interpreter d2k's workers use ($D2K_PYTHON, else the one found at configure time) and
  // the script shipped in the source tree.
  PythonAnalyzer();
  PythonAnalyzer(std::filesystem::path python, std::filesystem::path script);

  // Findings for `entry` and every module it imports from its own folder; empty when it obeys
  // the rules. Throws std::runtime_error when the analysis itself fails.
  std::vector<record::Finding> analyze(const std::filesystem::path& entry,
                                       const task::ImplementationRules& rules) const;

 private:
  std::filesystem::path python_;
  std::filesystem::path script_;
};

}  // namespace d2k::validity
