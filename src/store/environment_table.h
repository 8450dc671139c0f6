#pragma once
// The environments table, which evaluations and device ceilings both point at.

#include <cstdint>

#include "record/result.h"
#include "store/database.h"

namespace d2k::store {

// The id of the row for `environment`, inserted if new. Call inside the writer's transaction.
int64_t environment_id(const Database& db, const record::Environment& environment);

}  // namespace d2k::store
