#pragma once
// The folder where a plan's cells leave their traces (the plan's work_dir; on a cluster a
// shared folder): records/ holds each finished cell's store, written under a temporary name and
// renamed when complete, so a killed cell leaves no record; logs/ what the cells printed;
// locks/ one lock per cell, held while it runs; failures/ why the last attempt of a cell failed.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "sweep/cell.h"

namespace d2k::sweep {

// Why a cell's last attempt failed, as the failures/ note keeps it.
struct Failure {
  std::string reason;  // "exited with status 2", "CANCELLED", ...
  std::string log;     // where its output is
};

class WorkDir {
 public:
  explicit WorkDir(std::filesystem::path root);  // creates the folders

  const std::filesystem::path& root() const { return root_; }
  std::filesystem::path record(const Cell& cell) const;
  // A name of this process's own under records/, never taken for a record.
  std::filesystem::path temp_record(const Cell& cell) const;
  std::filesystem::path log(const Cell& cell) const;
  std::filesystem::path lock(const Cell& cell) const;
  std::filesystem::path slurm_dir() const { return root_ / "slurm"; }
  // Writes the cell for its worker (cells/<stem>.json) and returns the file.
  std::filesystem::path write_cell(const Cell& cell) const;

  // Every complete record, sorted.
  std::vector<std::filesystem::path> records() const;
  // Removes temporary records that killed attempts of `cell` left behind.
  void remove_temp_records(const Cell& cell) const;

  void write_failure(const Cell& cell, const Failure& failure) const;
  std::optional<Failure> failure(const Cell& cell) const;
  void clear_failure(const Cell& cell) const;

 private:
  std::filesystem::path root_;
};

// An exclusive lock on a file, released when the holder closes it or dies (flock).
class CellLock {
 public:
  // Takes the lock if it is free; held() says whether it was.
  explicit CellLock(const std::filesystem::path& file);
  ~CellLock();
  CellLock(const CellLock&) = delete;  // owns the descriptor that holds the lock
  CellLock& operator=(const CellLock&) = delete;

  bool held() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

Cell read_cell(const std::filesystem::path& file);

// Whether another process holds the lock on `file` now.
bool locked_elsewhere(const std::filesystem::path& file);

}  // namespace d2k::sweep
