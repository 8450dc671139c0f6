#pragma once
// A JSON Schema (draft 2020-12) restricted to the keywords d2k's schemas use, and the validator
// for it. Loading refuses any other keyword, so a schema never means less to d2k than it says;
// validation reports every violation, not just the first. docs/schema.md lists the keywords and
// the choices made where the standard leaves room.

#include <filesystem>
#include <vector>

#include <nlohmann/json.hpp>

#include "schema/schema_node.h"
#include "schema/violation.h"

namespace d2k::schema {

class Schema {
 public:
  // Throws SchemaError naming the first keyword (by JSON pointer) it cannot honour.
  explicit Schema(const nlohmann::json& document);
  // Reads and compiles a schema file; throws std::runtime_error (SchemaError for the content)
  // with the file's name.
  static Schema load(const std::filesystem::path& file);

  // Every violation, in a stable order; empty when `instance` is valid.
  std::vector<Violation> validate(const nlohmann::json& instance) const;
  // The same for a JSON file; throws std::runtime_error when it is unreadable or not JSON.
  std::vector<Violation> validate_file(const std::filesystem::path& file) const;

 private:
  std::vector<SchemaNode> nodes_;  // nodes_[0] is the root
};

// schemas/design_schema.json in the source tree: the shape of a task's guidance.json and of a
// design an agent submits (the paper's Appendix B.2 design output schema).
std::filesystem::path design_schema_path();

}  // namespace d2k::schema
