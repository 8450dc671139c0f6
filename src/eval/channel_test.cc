#include "eval/channel.h"

#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>

#include <gtest/gtest.h>

namespace d2k::eval {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

class ChannelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    int fds[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
    reader_ = std::make_unique<Channel>(fds[0]);
    writer_ = std::make_unique<Channel>(fds[1]);
  }

  // Writes raw bytes to the writer's end, as a worker's partial writes would arrive.
  void write_raw(const std::string& text) {
    ASSERT_EQ(::write(writer_->fd(), text.data(), text.size()),
              static_cast<ssize_t>(text.size()));
  }

  std::unique_ptr<Channel> reader_;
  std::unique_ptr<Channel> writer_;
};

TEST_F(ChannelTest, SentMessageArrivesIntact) {
  const json sent = {{"event", "trial"}, {"trial", 2}, {"seed", 9223372036854775807ull},
                     {"outputs", json::array({{{"name", "out"}}})}};
  writer_->send(sent);

  json received;
  ASSERT_EQ(reader_->receive(received, 10s), Channel::Status::message);
  EXPECT_EQ(received, sent);
}

TEST_F(ChannelTest, MessageSplitAcrossWritesIsReassembled) {
  write_raw(R"({"event": "pro)");
  json received;
  // Half a message is not a message.
  ASSERT_EQ(reader_->receive(received, 0ms), Channel::Status::timed_out);

  write_raw(R"(gress", "phase": )");
  ASSERT_EQ(reader_->receive(received, 0ms), Channel::Status::timed_out);

  write_raw("\"call\"}\n");
  ASSERT_EQ(reader_->receive(received, 10s), Channel::Status::message);
  EXPECT_EQ(received, json({{"event", "progress"}, {"phase", "call"}}));
}

TEST_F(ChannelTest, SeveralMessagesInOneWriteArriveInOrder) {
  write_raw("{\"n\": 1}\n{\"n\": 2}\n{\"n\": 3}\n");

  json received;
  for (int n = 1; n <= 3; ++n) {
    ASSERT_EQ(reader_->receive(received, 10s), Channel::Status::message);
    EXPECT_EQ(received.at("n"), n);
  }
  EXPECT_EQ(reader_->receive(received, 0ms), Channel::Status::timed_out);
}

TEST_F(ChannelTest, MessageLargerThanOneReadIsReassembled) {
  const std::string big(300 * 1024, 'x');  // several reads of the 64 KiB chunk
  writer_->send({{"payload", big}});

  json received;
  ASSERT_EQ(reader_->receive(received, 10s), Channel::Status::message);
  EXPECT_EQ(received.at("payload").get<std::string>(), big);
}

TEST_F(ChannelTest, TimesOutWhenNothingArrives) {
  json received = "untouched";
  EXPECT_EQ(reader_->receive(received, 20ms), Channel::Status::timed_out);
  EXPECT_EQ(received, "untouched");
}

TEST_F(ChannelTest, ReportsClosedWhenThePeerCloses) {
  writer_.reset();

  json received;
  EXPECT_EQ(reader_->receive(received, 10s), Channel::Status::closed);
}

TEST_F(ChannelTest, DeliversBufferedMessagesBeforeReportingClosed) {
  writer_->send({{"event", "done"}});
  writer_.reset();

  json received;
  ASSERT_EQ(reader_->receive(received, 10s), Channel::Status::message);
  EXPECT_EQ(received.at("event"), "done");
  EXPECT_EQ(reader_->receive(received, 10s), Channel::Status::closed);
}

TEST_F(ChannelTest, PartialMessageFollowedByCloseIsClosed) {
  write_raw(R"({"event": "trial", "tri)");
  writer_.reset();

  json received;
  EXPECT_EQ(reader_->receive(received, 10s), Channel::Status::closed);
}

TEST_F(ChannelTest, InvalidUtf8InAStringIsReplacedRatherThanThrown) {
  writer_->send({{"message", std::string("bad \xff byte")}});

  json received;
  ASSERT_EQ(reader_->receive(received, 10s), Channel::Status::message);
  EXPECT_EQ(received.at("message"), "bad \xEF\xBF\xBD byte");  // U+FFFD
}

TEST_F(ChannelTest, SendToAClosedPeerThrowsInsteadOfRaisingSigpipe) {
  reader_.reset();
  EXPECT_THROW(writer_->send({{"event", "done"}}), std::runtime_error);
}

}  // namespace
}  // namespace d2k::eval
