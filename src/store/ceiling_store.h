#pragma once
// The device ceilings of the store (docs/scores.md): what `d2k doctor` measured, one row per
// run, tied to the environment it ran in and stored with the toolchain doctor found.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "record/device_ceilings.h"
#include "record/result.h"
#include "record/toolchain_component.h"
#include "store/database.h"

namespace d2k::store {

class CeilingStore {
 public:
  explicit CeilingStore(std::shared_ptr<const Database> db);

  // Sets ceilings.created_at (if empty) and returns the row id.
  int64_t save(const record::Environment& environment, record::DeviceCeilings& ceilings,
               const std::vector<record::ToolchainComponent>& toolchain);
  // The newest ceilings measured on a device named `device_name`, whatever its software stack.
  std::optional<record::DeviceCeilings> latest(const std::string& device_name) const;

 private:
  std::shared_ptr<const Database> db_;
};

}  // namespace d2k::store
