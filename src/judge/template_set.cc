#include "judge/template_set.h"

#include <cstdlib>

#include "util/hash.h"

namespace d2k::judge {

TemplateSet TemplateSet::load(const std::filesystem::path& dir) {
  TemplateSet set;
  set.system_ = PromptTemplate::load(dir / "system.txt");
  set.impl_ = PromptTemplate::load(dir / "impl.txt");
  set.design_ = PromptTemplate::load(dir / "design.txt");
  set.repair_ = PromptTemplate::load(dir / "repair.txt");
  return set;
}

std::filesystem::path TemplateSet::default_dir() {
  if (const char* env = std::getenv("D2K_JUDGE_TEMPLATES"); env != nullptr && *env != '\0') {
    return env;
  }
  return std::filesystem::path(D2K_SOURCE_DIR) / "judge" / "templates";
}

const PromptTemplate& TemplateSet::user(record::JudgeKind kind) const {
  return kind == record::JudgeKind::impl ? impl_ : design_;
}

std::string TemplateSet::version(record::JudgeKind kind) const {
  return user(kind).version() + "+" + system_.version() + "+" + repair_.version();
}

std::string TemplateSet::hash(record::JudgeKind kind) const {
  util::Hasher hasher;
  for (const PromptTemplate* t : {&user(kind), &system_, &repair_}) {
    hasher.update(t->file_text().data(), t->file_text().size());
  }
  return util::to_hex(hasher.digest());
}

}  // namespace d2k::judge
