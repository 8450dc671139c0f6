#pragma once
// A schema d2k's validator cannot load: not a schema, an unsupported keyword, a malformed keyword
// value, or a $ref it cannot resolve. Located by the JSON pointer of the offending keyword, so
// "/properties/name/format: unsupported keyword 'format'" names what to change.

#include <stdexcept>
#include <string>

namespace d2k::schema {

class SchemaError : public std::runtime_error {
 public:
  // `source` (a file name) prefixes what() when not empty.
  SchemaError(std::string pointer, std::string keyword, std::string message,
              const std::string& source = "");

  // JSON pointer, in the schema document, of the keyword at fault ("" for the whole document).
  const std::string& pointer() const { return pointer_; }
  const std::string& keyword() const { return keyword_; }
  // The diagnostic without its location prefix.
  const std::string& message() const { return message_; }

 private:
  std::string pointer_;
  std::string keyword_;
  std::string message_;
};

}  // namespace d2k::schema
