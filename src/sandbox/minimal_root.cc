#include "sandbox/minimal_root.h"

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <optional>

namespace d2k::sandbox {
namespace {

namespace fs = std::filesystem;

std::string failure(const std::string& what) { return what + ": " + std::strerror(errno); }

// `path` is `folder` or lies below it.
bool is_within(const fs::path& path, const fs::path& folder) {
  const fs::path relative = path.lexically_relative(folder);
  return !relative.empty() && *relative.begin() != "..";
}

// `recursive`: the mounts below too (a bind's own submounts from the host).
bool set_read_only(const fs::path& mount_point, bool read_only, bool recursive) {
  mount_attr attr{};
  attr.attr_set = MOUNT_ATTR_NOSUID;
  (read_only ? attr.attr_set : attr.attr_clr) |= MOUNT_ATTR_RDONLY;
  return mount_setattr(AT_FDCWD, mount_point.c_str(), recursive ? AT_RECURSIVE : 0, &attr,
                       sizeof attr) == 0;
}

struct Entry {
  fs::path path;  // as the policy names it
  fs::path real;  // without symbolic links, on the host
  bool writable = false;
  bool device = false;
  bool directory = false;
  int fd = -1;    // opened before anything is covered
};

// One step of building the tree: a symbolic link to recreate, or an entry to bind at `place`.
struct Step {
  fs::path place;
  fs::path target;               // for a link
  const Entry* entry = nullptr;  // for a bind
  bool make_point = false;       // the mount point lies in the tmpfs and must be made
};

// Everything about the host is read before the staging tmpfs covers anything (it may cover the
// very folders the entries sit in); the tree is then built from the plan and the open entries.
class RootBuilder {
 public:
  RootBuilder(fs::path staging, Report& report) : staging_(std::move(staging)), report_(report) {}
  ~RootBuilder() {
    for (const Entry& entry : entries_) close(entry.fd);
  }
  RootBuilder(const RootBuilder&) = delete;
  RootBuilder& operator=(const RootBuilder&) = delete;

  // Opens `path` now; a path the host lacks is left out unless `required`.
  bool add(const fs::path& path, bool writable, bool device, bool required) {
    const int fd = open(path.c_str(), O_PATH | O_CLOEXEC);
    struct stat info {};
    if (fd < 0 || fstat(fd, &info) != 0) {
      if (fd >= 0) close(fd);
      if (!required) return true;
      return fail("opening " + path.string());
    }
    std::error_code error;
    fs::path real = fs::canonical(path, error);
    if (error) real = path;
    entries_.push_back({path, real, writable, device, S_ISDIR(info.st_mode), fd});
    return true;
  }

  bool build(const Policy& policy) {
    plan(policy);
    if (mount("tmpfs", staging_.c_str(), "tmpfs", MS_NOSUID, "mode=0755") != 0) {
      return fail("mounting a tmpfs at " + staging_.string());
    }
    bool built = true;
    for (const Step& step : steps_) {
      built = built && (step.entry == nullptr ? link(step) : bind(step));
    }
    built = built && devices() && mask();
    if (!built) umount2(staging_.c_str(), MNT_DETACH);  // the host's tree, as it was
    return built;
  }

  bool fail(const std::string& what) {
    report_.unavailable.push_back("minimal root: " + failure(what));
    return false;
  }

 private:
  fs::path at(const fs::path& path) const { return staging_ / path.relative_path(); }

  // The innermost planned bind that holds `real`.
  const Step* cover(const fs::path& real) const {
    const Step* found = nullptr;
    for (const Step& step : steps_) {
      if (step.entry != nullptr && is_within(real, step.place) &&
          (found == nullptr || step.place.string().size() >= found->place.string().size())) {
        found = &step;
      }
    }
    return found;
  }

  void plan(const Policy& policy) {
    std::vector<const Entry*> order;
    for (const Entry& entry : entries_) order.push_back(&entry);
    // Ancestors before what lies below them, so a bind never hides an earlier one.
    std::stable_sort(order.begin(), order.end(),
                     [](const Entry* a, const Entry* b) { return a->real < b->real; });
    const fs::path tmp = policy.minimal_root->tmp;
    const Entry* tmp_entry = nullptr;
    bool under_tmp = false;
    for (const Entry* entry : order) {
      if (!tmp.empty() && entry->path == tmp) tmp_entry = entry;
      under_tmp = under_tmp || is_within(entry->real, "/tmp");
      walk(entry->path);
      plan_bind(*entry, entry->real);
    }
    // /dev/shm always, /tmp unless entries lie there (TMPDIR names the folder in any case).
    if (tmp_entry != nullptr) {
      plan_bind(*tmp_entry, "/dev/shm");
      if (!under_tmp) plan_bind(*tmp_entry, "/tmp");
    }
    for (const auto& hidden : policy.hidden) {
      std::error_code error;
      const fs::path real = fs::weakly_canonical(hidden, error);
      if (!error) hidden_.push_back(real);
    }
    for (const auto& folder : policy.hidden_except_writable) {
      std::error_code error;
      const fs::path real = fs::weakly_canonical(folder, error);
      if (!error) hidden_except_kept_.push_back(real);
    }
    order_ = order;
  }

  void plan_bind(const Entry& entry, const fs::path& place) {
    const Step* holder = cover(place);
    if (holder != nullptr && place == entry.real && holder->entry->writable == entry.writable &&
        !entry.device) {
      return;  // already visible, as it should be, through a folder above it
    }
    steps_.push_back({place, {}, &entry, holder == nullptr});
  }

  // Plans, outside bound folders, each symbolic link met on the way to `path`.
  void walk(const fs::path& path) {
    const fs::path relative = path.relative_path();
    std::deque<fs::path> rest(relative.begin(), relative.end());
    fs::path done = "/";
    for (int links = 0; !rest.empty();) {
      const fs::path part = rest.front();
      rest.pop_front();
      if (part.empty() || part == ".") continue;
      if (part == "..") {
        done = done.parent_path();
        continue;
      }
      const fs::path next = done / part;
      struct stat info {};
      if (lstat(next.c_str(), &info) != 0) return;
      if (!S_ISLNK(info.st_mode)) {
        done = next;
        continue;
      }
      std::error_code error;
      const fs::path target = fs::read_symlink(next, error);
      if (error || ++links > 40) return;
      if (cover(next) == nullptr) steps_.push_back({next, target, nullptr, false});
      const fs::path target_parts = target.relative_path();
      rest.insert(rest.begin(), target_parts.begin(), target_parts.end());
      if (target.is_absolute()) done = "/";
    }
  }

  bool link(const Step& step) {
    std::error_code error;
    fs::create_directories(at(step.place.parent_path()), error);
    if (symlink(step.target.c_str(), at(step.place).c_str()) != 0 && errno != EEXIST) {
      return fail("recreating the link " + step.place.string());
    }
    return true;
  }

  bool bind(const Step& step) {
    const Entry& entry = *step.entry;
    const fs::path point = at(step.place);
    if (step.make_point) {
      std::error_code error;
      fs::create_directories(entry.directory ? point : point.parent_path(), error);
      if (!entry.directory) close(open(point.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
    }
    const std::string source = "/proc/self/fd/" + std::to_string(entry.fd);
    if (mount(source.c_str(), point.c_str(), nullptr, MS_BIND | MS_REC, nullptr) != 0) {
      return fail("binding " + entry.path.string() + " at " + step.place.string());
    }
    if (!set_read_only(point, !entry.writable, true)) {
      return fail("setting the access of " + step.place.string());
    }
    return true;
  }

  // The links every /dev has; the nodes themselves are entries.
  bool devices() {
    std::error_code error;
    fs::create_directories(at("/dev"), error);
    for (const auto& [name, target] : {std::pair{"fd", "/proc/self/fd"}, {"stdin", "/proc/self/fd/0"},
                                       {"stdout", "/proc/self/fd/1"}, {"stderr", "/proc/self/fd/2"}}) {
      if (symlink(target, at(fs::path("/dev") / name).c_str()) != 0 && errno != EEXIST) {
        return fail(std::string("making /dev/") + name);
      }
    }
    return true;
  }

  bool mask() {
    for (const auto& real : hidden_except_kept_) {
      if (!fs::is_directory(at(real))) continue;
      if (mount("tmpfs", at(real).c_str(), "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,mode=0755") != 0) {
        return fail("hiding " + real.string());
      }
      // What was bound below the folder is covered now: bind it again, on made mount points.
      for (const Entry* entry : order_) {
        if (entry->device || !is_within(entry->real, real) || entry->real == real) continue;
        if (!bind({entry->real, {}, entry, true})) return false;
      }
      if (!set_read_only(at(real), true, false)) return fail("making " + real.string() + " read-only");
    }
    // The masks last, so that a folder bound again above (the task's) still hides what it holds.
    for (const auto& real : hidden_) {
      const fs::path point = at(real);
      struct stat info {};
      if (lstat(point.c_str(), &info) != 0) continue;  // not in the new root
      const bool folder = S_ISDIR(info.st_mode);
      const int status =
          folder ? mount("tmpfs", point.c_str(), "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
                         "size=4k,mode=0555")
                 : mount("/dev/null", point.c_str(), nullptr, MS_BIND, nullptr);
      if (status != 0 || (!folder && !set_read_only(point, true, false))) {
        return fail("hiding " + real.string());
      }
    }
    return true;
  }

  fs::path staging_;
  Report& report_;
  std::vector<Entry> entries_;
  std::vector<const Entry*> order_;
  std::vector<Step> steps_;
  std::vector<fs::path> hidden_;
  std::vector<fs::path> hidden_except_kept_;
};

}  // namespace

bool build_root(const Policy& policy, const fs::path& staging, Report& report) try {
  RootBuilder builder(staging, report);
  const MinimalRoot& root = *policy.minimal_root;
  for (const auto& path : root.system) {
    if (!builder.add(path, false, false, false)) return false;
  }
  for (const auto& path : root.devices) {
    if (!builder.add(path, false, true, false)) return false;
  }
  for (const auto& path : policy.readable) {
    if (!builder.add(path, false, false, true)) return false;
  }
  for (const auto& path : policy.writable) {
    if (!builder.add(path, true, false, true)) return false;
  }
  if (!root.tmp.empty() && !builder.add(root.tmp, true, false, true)) return false;
  return builder.build(policy);
} catch (const std::exception& error) {
  report.unavailable.push_back(std::string("minimal root: ") + error.what());
  return false;
}

bool enter_root(const fs::path& staging, Report& report) {
  const auto fail = [&](const std::string& what) {
    report.unavailable.push_back("minimal root: " + failure(what));
    return false;
  };
  // /proc first, while the host's own /proc is still in this namespace: the kernel lets a
  // namespace mount a proc only where one is already fully visible.
  const fs::path proc = staging / "proc";
  std::error_code error;
  fs::create_directories(proc, error);
  report.process_view = mount("proc", proc.c_str(), "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) == 0;
  if (!report.process_view) report.unavailable.push_back(failure("process view: mounting /proc"));
  if (chdir(staging.c_str()) != 0 || syscall(SYS_pivot_root, ".", ".") != 0) {
    fail("pivot_root into " + staging.string());
    if (chdir("/") != 0 || umount2(staging.c_str(), MNT_DETACH) != 0) _exit(127);
    return false;
  }
  // Past the pivot there is no way back to a tree the masks could cover: a failure ends here.
  if (umount2(".", MNT_DETACH) != 0 || chdir("/") != 0 || !set_read_only("/", true, false)) {
    const std::string reason = failure("d2k sandbox: finishing the minimal root") + "\n";
    [[maybe_unused]] const ssize_t written = write(STDERR_FILENO, reason.data(), reason.size());
    _exit(127);
  }
  return true;
}

}  // namespace d2k::sandbox
