#include "store/ceiling_store.h"

#include <utility>

#include "store/environment_table.h"
#include "store/json_text.h"
#include "util/text.h"

namespace d2k::store {

CeilingStore::CeilingStore(std::shared_ptr<const Database> db) : db_(std::move(db)) {}

int64_t CeilingStore::save(const record::Environment& environment,
                                   record::DeviceCeilings& ceilings,
                                   const std::vector<record::ToolchainComponent>& toolchain) {
  if (ceilings.created_at.empty()) ceilings.created_at = util::utc_now_iso8601();
  Transaction transaction(*db_);
  Statement insert = db_->prepare(
      "INSERT INTO device_ceilings (created_at, environment_id, ceilings_json, toolchain_json) "
      "VALUES (?1, ?2, ?3, ?4)");
  insert.bind(1, ceilings.created_at, environment_id(*db_, environment), to_json_text(ceilings),
              to_json_text(toolchain));
  insert.step();
  const int64_t id = db_->last_insert_rowid();
  transaction.commit();
  return id;
}

std::optional<record::DeviceCeilings> CeilingStore::latest(
    const std::string& device_name) const {
  Statement select = db_->prepare(
      "SELECT c.ceilings_json FROM device_ceilings c "
      "JOIN environments env ON env.id = c.environment_id WHERE env.device_name = ?1 "
      "ORDER BY c.created_at DESC, c.id DESC LIMIT 1");
  select.bind_text(1, device_name);
  if (!select.step()) return std::nullopt;
  return from_json_text(select.column_text(0)).get<record::DeviceCeilings>();
}

}  // namespace d2k::store
