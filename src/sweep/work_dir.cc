#include "sweep/work_dir.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>

#include <nlohmann/json.hpp>

namespace d2k::sweep {

namespace fs = std::filesystem;

namespace {

constexpr const char* kTempMarker = ".sqlite.tmp-";

std::string host_name() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return name;
}

}  // namespace

WorkDir::WorkDir(fs::path root) : root_(std::move(root)) {
  for (const char* sub : {"records", "logs", "locks", "failures", "slurm", "cells"}) {
    fs::create_directories(root_ / sub);
  }
}

fs::path WorkDir::record(const Cell& cell) const {
  return root_ / "records" / (cell.file_stem() + ".sqlite");
}

fs::path WorkDir::temp_record(const Cell& cell) const {
  return root_ / "records" /
         (cell.file_stem() + kTempMarker + host_name() + "-" + std::to_string(getpid()));
}

fs::path WorkDir::log(const Cell& cell) const { return root_ / "logs" / (cell.file_stem() + ".log"); }

fs::path WorkDir::lock(const Cell& cell) const { return root_ / "locks" / (cell.file_stem() + ".lock"); }

std::vector<fs::path> WorkDir::records() const {
  std::vector<fs::path> records;
  for (const auto& entry : fs::directory_iterator(root_ / "records")) {
    if (entry.is_regular_file() && entry.path().extension() == ".sqlite") {
      records.push_back(entry.path());
    }
  }
  std::sort(records.begin(), records.end());
  return records;
}

void WorkDir::remove_temp_records(const Cell& cell) const {
  const std::string prefix = cell.file_stem() + kTempMarker;
  for (const auto& entry : fs::directory_iterator(root_ / "records")) {
    if (entry.path().filename().string().rfind(prefix, 0) == 0) fs::remove(entry.path());
  }
}

fs::path WorkDir::write_cell(const Cell& cell) const {
  const fs::path file = root_ / "cells" / (cell.file_stem() + ".json");
  const fs::path temp = file.string() + ".tmp-" + std::to_string(getpid());
  std::ofstream(temp) << nlohmann::json(cell).dump(2) << "\n";
  fs::rename(temp, file);
  return file;
}

Cell read_cell(const fs::path& file) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error("cannot read the cell " + file.string());
  return nlohmann::json::parse(in).get<Cell>();
}

void WorkDir::write_failure(const Cell& cell, const Failure& failure) const {
  const fs::path file = root_ / "failures" / (cell.file_stem() + ".json");
  const fs::path temp = file.string() + ".tmp-" + std::to_string(getpid());
  std::ofstream(temp) << nlohmann::json{{"key", cell.key()}, {"reason", failure.reason},
                                        {"log", failure.log}}.dump(2)
                      << "\n";
  fs::rename(temp, file);
}

std::optional<Failure> WorkDir::failure(const Cell& cell) const {
  std::ifstream in(root_ / "failures" / (cell.file_stem() + ".json"));
  if (!in) return std::nullopt;
  const auto j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded()) return std::nullopt;
  return Failure{j.value("reason", ""), j.value("log", "")};
}

void WorkDir::clear_failure(const Cell& cell) const {
  fs::remove(root_ / "failures" / (cell.file_stem() + ".json"));
}

CellLock::CellLock(const fs::path& file) {
  fd_ = open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ >= 0 && flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    close(fd_);
    fd_ = -1;
  }
}

CellLock::~CellLock() {
  if (fd_ >= 0) close(fd_);
}

bool locked_elsewhere(const fs::path& file) {
  if (!fs::exists(file)) return false;
  return !CellLock(file).held();
}

}  // namespace d2k::sweep
