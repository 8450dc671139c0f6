#pragma once
// Which workload parameters get_inputs(config) must read: every key of the workload entry over
// fixed_params, except the label, the original format's metadata and the names the task's
// formulas use. A key it never reads is a misspelled or stale parameter: a task error.

#include <string>
#include <vector>

#include "task/task.h"

namespace d2k::task {

// The keys get_inputs need not read.
std::vector<std::string> parameters_not_for_inputs(const Task& task);

// What can be seen before running anything: "workload \"small\": shpae" for each workload key
// that get_inputs.py's text never reads as CONFIG["key"] or CONFIG.get("key"). Empty when the
// config argument is used any other way (passed on, iterated, unpacked): any key may be read then.
std::vector<std::string> unread_parameters(const Task& task);

}  // namespace d2k::task
