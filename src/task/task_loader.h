#pragma once
// Reads a task folder (docs/task-format.md) into a validated Task. Every problem with the folder
// is a TaskError that names the file and, where it can, the line and column.

#include <filesystem>
#include <vector>

#include "task/task.h"

namespace d2k::task {

// Loads and validates `dir`; the task id is the folder's name.
Task load_task(const std::filesystem::path& dir);

// The subfolders of `root` that hold a config.json, sorted by path.
std::vector<std::filesystem::path> find_task_dirs(const std::filesystem::path& root);

// $D2K_TASKS when set, else the source tree's tasks/ folder.
std::filesystem::path default_tasks_root();

}  // namespace d2k::task
