#include "sandbox/system_view.h"

#include <algorithm>

#include <gtest/gtest.h>

namespace d2k::sandbox {
namespace {

namespace fs = std::filesystem;

bool has(const std::vector<fs::path>& paths, const fs::path& path) {
  return std::find(paths.begin(), paths.end(), path) != paths.end();
}

TEST(SystemViewTest, OutermostFoldersOnlyAndNeverTheHostsSecrets) {
  HostFacts facts;
  facts.interpreter = {"/usr", "/usr/lib/python3.12", "/root/.local/lib/python3.12/site-packages", "/", ""};
  facts.loader = {"/usr/lib/x86_64-linux-gnu", "/opt/nvidia/lib64"};
  facts.mapped = {"/opt/d2k/bin/d2k", "/home/someone/lib/libx.so"};
  facts.search = {"/usr/local/cuda/bin", "/proc/self", "/run/secrets", "/tmp/../root/bin"};
  facts.gpu_devices = {"/dev/nvidia0", "/dev/nvidiactl", "/dev/nvidia-caps"};
  facts.root_links = {{"/lib64", "/usr/lib64"}, {"/vmlinuz", "/boot/vmlinuz-6.8"}};
  const MinimalRoot root = minimal_root_from(facts);
  for (const char* kept : {"/usr", "/opt/nvidia/lib64", "/opt/d2k/bin", "/etc/ld.so.cache", "/lib64"}) {
    EXPECT_TRUE(has(root.system, kept)) << kept;
  }
  for (const char* left_out : {"/usr/lib/python3.12", "/usr/local/cuda/bin", "/", "/root/bin", "/proc/self",
                               "/run/secrets", "/home/someone/lib", "/vmlinuz"}) {
    EXPECT_FALSE(has(root.system, left_out)) << left_out;
  }
  for (const auto& path : root.system) {
    EXPECT_NE(path.string().rfind("/root", 0), 0u) << path;
    EXPECT_NE(path.string().rfind("/home", 0), 0u) << path;
  }
  EXPECT_TRUE(has(root.devices, "/dev/null"));
  EXPECT_TRUE(has(root.devices, "/dev/nvidia-caps"));
  EXPECT_TRUE(root.tmp.empty());
}

TEST(SystemViewTest, ThisHostsInterpreterIsFound) {
  const HostFacts& facts = host_facts();
  ASSERT_FALSE(facts.interpreter.empty()) << "the interpreter probe gave nothing";
  const MinimalRoot root = minimal_root_from(facts);
  EXPECT_FALSE(root.system.empty());
}

}  // namespace
}  // namespace d2k::sandbox
