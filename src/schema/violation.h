#pragma once
// One way an instance fails a schema.

#include <string>

namespace d2k::schema {

struct Violation {
  std::string instance_pointer;  // JSON pointer of the offending value ("" for the document)
  std::string keyword;           // the schema keyword that failed, e.g. "minLength"
  std::string schema_pointer;    // JSON pointer of that keyword in the schema
  std::string message;           // e.g. "does not match pattern ^[a-z]+$"

  // "/stages/0/stage_id: does not match pattern ^[a-z]+$"; the document itself is "(document)".
  std::string to_string() const;
};

}  // namespace d2k::schema
