#include "schema/schema_error.h"

#include <utility>

namespace d2k::schema {
namespace {

std::string diagnostic(const std::string& source, const std::string& pointer,
                       const std::string& message) {
  const std::string location = pointer.empty() ? "(schema root)" : pointer;
  return (source.empty() ? "" : source + ": ") + location + ": " + message;
}

}  // namespace

SchemaError::SchemaError(std::string pointer, std::string keyword, std::string message,
                         const std::string& source)
    : std::runtime_error(diagnostic(source, pointer, message)),
      pointer_(std::move(pointer)),
      keyword_(std::move(keyword)),
      message_(std::move(message)) {}

}  // namespace d2k::schema
