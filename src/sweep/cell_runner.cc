#include "sweep/cell_runner.h"

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>

#include "sweep/ledger.h"

namespace d2k::sweep {
namespace {

namespace fs = std::filesystem;

// The record's bytes reach the disk before its name does.
void sync_file(const fs::path& file) {
  const int fd = open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  fsync(fd);
  close(fd);
}

}  // namespace

CellRunResult run_cell(const Cell& cell, const WorkDir& dir, const std::vector<std::string>& d2k,
                       ProcessRunner& runner) {
  const CellLock lock(dir.lock(cell));
  if (!lock.held()) return {CellRun::running_elsewhere, ""};
  if (fs::exists(dir.record(cell))) return {CellRun::already_recorded, ""};
  dir.clear_failure(cell);
  dir.remove_temp_records(cell);
  const fs::path temp = dir.temp_record(cell);

  std::vector<std::string> argv = d2k;
  argv.insert(argv.end(), {"--store", temp.string()});
  argv.insert(argv.end(), cell.arguments.begin(), cell.arguments.end());
  runner.start(argv, {}, dir.log(cell));
  const ProcessExit exit = runner.wait_any().second;

  // d2k eval and d2k agent run exit with 1 for a result that failed; that is still the result.
  const bool finished = exit.exited && (exit.status == 0 || exit.status == 1);
  CellRunResult result;
  if (!finished) {
    result.reason = "d2k " + exit.describe();
  } else if (!fs::exists(temp) || Ledger::read(temp).count(cell) == 0) {
    result.reason = "d2k " + exit.describe() + " without storing the cell's result";
  } else {
    sync_file(temp);
    fs::rename(temp, dir.record(cell));
    dir.clear_failure(cell);
    return {CellRun::recorded, ""};
  }
  dir.remove_temp_records(cell);
  dir.write_failure(cell, {result.reason, dir.log(cell).string()});
  return result;
}

}  // namespace d2k::sweep
