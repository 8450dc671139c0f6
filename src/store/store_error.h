#pragma once

#include <stdexcept>

namespace d2k::store {

// Every failure of the store: SQLite errors (carrying SQLite's message), unreadable files and
// schema versions this build does not know.
class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace d2k::store
