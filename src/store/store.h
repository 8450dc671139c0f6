#pragma once
// The SQLite store: one file, one connection, and one store per record kind over it. See
// docs/store.md for the schema.

#include <filesystem>
#include <memory>

#include "store/agent_store.h"
#include "store/ceiling_store.h"
#include "store/database.h"
#include "store/evaluation_store.h"
#include "store/judge_store.h"
#include "store/store_error.h"

namespace d2k::store {

class Store {
 public:
  // Opens or creates the store at `path` (and its parent folders) and brings its schema up to
  // date; throws StoreError if the file was written by a newer d2k.
  static Store open(const std::filesystem::path& path);
  // Opens an existing store for reading only; the file is never changed (see
  // open_database_read_only()). Saving through it fails.
  static Store open_read_only(const std::filesystem::path& path);
  // $D2K_STORE if set, else d2k-store.sqlite in the current directory.
  static std::filesystem::path default_path();

  // Throws StoreError unless a write would succeed now: the file or its folder is read-only, or
  // another process holds the write lock beyond the busy timeout. Commands that store what they
  // do call it before any work, so that nothing runs for a record that cannot be kept.
  void check_writable() const;

  EvaluationStore& evaluations() { return evaluations_; }
  const EvaluationStore& evaluations() const { return evaluations_; }
  JudgeStore& judge_assessments() { return judge_assessments_; }
  const JudgeStore& judge_assessments() const { return judge_assessments_; }
  CeilingStore& ceilings() { return ceilings_; }
  const CeilingStore& ceilings() const { return ceilings_; }
  AgentStore& agent_runs() { return agent_runs_; }
  const AgentStore& agent_runs() const { return agent_runs_; }

  const std::filesystem::path& path() const { return db_->path(); }

 private:
  explicit Store(std::shared_ptr<const Database> db);

  std::shared_ptr<const Database> db_;
  EvaluationStore evaluations_;
  JudgeStore judge_assessments_;
  CeilingStore ceilings_;
  AgentStore agent_runs_;
};

}  // namespace d2k::store
