#include "schema/violation.h"

namespace d2k::schema {

std::string Violation::to_string() const {
  return (instance_pointer.empty() ? "(document)" : instance_pointer) + ": " + message;
}

}  // namespace d2k::schema
