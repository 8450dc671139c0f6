#pragma once
// Turns a JSON Schema 2020-12 document into SchemaNodes, refusing anything the validator cannot
// honour: an unknown keyword, a malformed keyword value, a $ref outside "#/$defs/...". Nothing in
// a schema is silently ignored, so a schema either means to d2k what it means to the standard or
// does not load (docs/schema.md).

#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "schema/schema_node.h"

namespace d2k::schema {

class SchemaCompiler {
 public:
  // The nodes of `document`, the root first. Throws SchemaError.
  static std::vector<SchemaNode> compile(const nlohmann::json& document);

 private:
  using Pointer = nlohmann::json::json_pointer;

  size_t compile_node(const nlohmann::json& schema, const Pointer& at);
  void compile_keyword(SchemaNode& node, const std::string& keyword, const nlohmann::json& value,
                       const Pointer& at);
  void resolve_refs();

  std::vector<SchemaNode> nodes_;
  std::map<std::string, size_t> node_at_;  // schema pointer -> node, for $ref
  struct PendingRef {
    size_t node;
    std::string target;   // a pointer into the document
    std::string keyword;  // where the $ref is, for errors
  };
  std::vector<PendingRef> refs_;
};

}  // namespace d2k::schema
