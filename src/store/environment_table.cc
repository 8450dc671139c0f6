#include "store/environment_table.h"

#include <array>
#include <string>

namespace d2k::store {

int64_t environment_id(const Database& db, const record::Environment& environment) {
  const std::array<const std::string*, 8> fields{
      &environment.device_name, &environment.driver, &environment.cuda, &environment.torch,
      &environment.triton,      &environment.python, &environment.host, &environment.d2k_version};
  Statement insert = db.prepare(
      "INSERT INTO environments (device_name, driver, cuda, torch, triton, python, host, "
      "d2k_version) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) ON CONFLICT DO NOTHING");
  Statement select = db.prepare(
      "SELECT id FROM environments WHERE device_name = ?1 AND driver = ?2 AND cuda = ?3 AND "
      "torch = ?4 AND triton = ?5 AND python = ?6 AND host = ?7 AND d2k_version = ?8");
  for (size_t i = 0; i < fields.size(); ++i) {
    insert.bind_text(static_cast<int>(i + 1), *fields[i]);
    select.bind_text(static_cast<int>(i + 1), *fields[i]);
  }
  insert.step();
  select.step();
  return select.column_int(0);
}

}  // namespace d2k::store
