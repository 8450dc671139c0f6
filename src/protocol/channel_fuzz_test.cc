// A bounded random-input test of the worker channel's reader: whatever a candidate worker writes
// (random bytes, JSON nested far past the depth limit, a valid message with bytes changed), the
// orchestrator gets a message or a rejection, never a crash or a hang, and the channel keeps
// working for the next line.

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <thread>

#include <gtest/gtest.h>

#include "protocol/channel.h"
#include "util/hostile_text_test_util.h"

namespace d2k::protocol {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

constexpr int kRounds = 2000;

TEST(ChannelFuzzTest, HostileLinesAreMessagesOrRejectionsNeverCrashes) {
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
  Channel reader(fds[0]);
  Channel writer(fds[1]);
  reader.set_token("t");
  const std::string valid = R"({"event":"trial","token":"t","trial":1,"outputs":[{"name":"out","shape":[2,3]}]})";
  util::HostileText hostile(24);
  int rejected = 0;
  for (int round = 0; round < kRounds; ++round) {
    std::string line = hostile.next(valid);
    std::replace(line.begin(), line.end(), '\n', ' ');
    line += '\n';
    ASSERT_EQ(::write(writer.fd(), line.data(), line.size()), static_cast<ssize_t>(line.size()));
    json received;
    const Channel::Status status = reader.receive(received, 10s);
    ASSERT_TRUE(status == Channel::Status::message || status == Channel::Status::rejected) << line;
    if (status == Channel::Status::message) {
      EXPECT_TRUE(received.is_object());
      EXPECT_EQ(received.value("token", ""), "t");
    } else {
      ++rejected;
    }
  }
  EXPECT_GT(rejected, kRounds / 2) << "the hostile lines were mostly accepted: the generator is broken";
  writer.send(json{{"event", "done"}, {"token", "t"}});
  json received;
  ASSERT_EQ(reader.receive(received, 10s), Channel::Status::message);
  EXPECT_EQ(received["event"], "done");
}

TEST(ChannelFuzzTest, ALineNestedAHundredThousandDeepIsRejected) {
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
  Channel reader(fds[0]);
  Channel writer(fds[1]);
  const std::string line = std::string(100000, '[') + std::string(100000, ']') + "\n";
  std::thread sender([&] {
    for (size_t sent = 0; sent < line.size();) {
      const ssize_t n = ::write(writer.fd(), line.data() + sent, line.size() - sent);
      if (n <= 0) return;
      sent += static_cast<size_t>(n);
    }
  });
  json received;
  EXPECT_EQ(reader.receive(received, 10s), Channel::Status::rejected);
  sender.join();
}

}  // namespace
}  // namespace d2k::protocol
