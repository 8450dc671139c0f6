#pragma once
// Fills a ResultsPage from a store: the newest evaluation of each task's reference, baseline,
// expert and anchors on one device, and that device's newest ceilings.

#include <string>
#include <vector>

#include "report/results_page.h"
#include "store/store.h"

namespace d2k::report {

// `tasks` empty: every task in the store. `device` empty: the device of the newest expert
// evaluation (of any evaluation when there is no expert).
ResultsPage build_results_page(const store::Store& store, const std::vector<std::string>& tasks,
                               const std::string& device);

}  // namespace d2k::report
