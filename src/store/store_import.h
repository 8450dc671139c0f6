#pragma once
// `d2k store import`: merges the rows of one store into another through the stores' public
// API, idempotently. A row is identified by what it recorded (an evaluation by its task,
// implementation, start time and base seed; an agent run by its task, configuration, agent,
// model, start time and workspace; an assessment by its task, kind, candidate, model, template
// and time), never by its id, so importing the same file twice, or files that share rows, adds
// each row once. A row whose key is already stored with different contents is a conflict: the
// stored row is kept and the conflict is reported.

#include <filesystem>
#include <string>
#include <vector>

namespace d2k::store {

struct ImportReport {
  int evaluations_added = 0;
  int evaluations_present = 0;
  int runs_added = 0;
  int runs_present = 0;
  int events_added = 0;
  int assessments_added = 0;
  int assessments_present = 0;
  std::vector<std::string> conflicts;  // one line each, naming the row and the stored id

  ImportReport& operator+=(const ImportReport& other);
};

// Adds to the store at `destination` (created if absent) every row of `source` it lacks. An
// import cut short (a killed process) is finished by importing again: each evaluation and
// assessment is saved in one transaction, and a run's missing events are appended.
ImportReport import_store(const std::filesystem::path& source,
                          const std::filesystem::path& destination);

}  // namespace d2k::store
