#pragma once
// The judge's prompt templates, read from one folder (judge/templates/ in the source tree):
// system.txt (the shared system message), impl.txt and design.txt (the user messages of the two
// assessments) and repair.txt (the evidence-repair request).

#include <filesystem>
#include <string>

#include "judge/prompt_template.h"
#include "record/judge_assessment.h"

namespace d2k::judge {

class TemplateSet {
 public:
  // Throws when a file is missing or malformed.
  static TemplateSet load(const std::filesystem::path& dir);
  // $D2K_JUDGE_TEMPLATES when set, else the source tree's judge/templates.
  static std::filesystem::path default_dir();

  const PromptTemplate& system() const { return system_; }
  const PromptTemplate& user(record::JudgeKind kind) const;
  const PromptTemplate& repair() const { return repair_; }

  // "impl-1+system-1+repair-1": the VERSION ids of the three templates an assessment uses.
  std::string version(record::JudgeKind kind) const;
  // Hex content hash of those three files: changes with any edit, bumped version or not.
  std::string hash(record::JudgeKind kind) const;

 private:
  PromptTemplate system_;
  PromptTemplate impl_;
  PromptTemplate design_;
  PromptTemplate repair_;
};

}  // namespace d2k::judge
