#include "judge/endpoint.h"

#include <stdexcept>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace d2k::judge {
namespace {

TEST(JudgeEndpoint, TakesABaseUrlApart) {
  const Endpoint e = Endpoint::parse("https://api.example.com/v1/");
  EXPECT_EQ(e.scheme, "https");
  EXPECT_EQ(e.host, "api.example.com");
  EXPECT_EQ(e.port, 443);
  EXPECT_EQ(e.chat_completions_path(), "/v1/chat/completions");
  EXPECT_EQ(e.scheme_host_port(), "https://api.example.com:443");
  EXPECT_EQ(e.host_label(), "api.example.com:443");

  const Endpoint local = Endpoint::parse("http://127.0.0.1:8000");
  EXPECT_EQ(local.port, 8000);
  EXPECT_EQ(local.chat_completions_path(), "/chat/completions");
  EXPECT_EQ(Endpoint::parse("http://[::1]:9000/v1").host, "[::1]");
  EXPECT_EQ(Endpoint::parse("http://[::1]/v1").port, 80);
}

TEST(JudgeEndpoint, RefusesWhatIsNotAnHttpBaseUrl) {
  for (const char* url :
       {"api.example.com/v1", "ftp://host/v1", "http://:80/v1", "http://host:0/v1",
        "http://host:99999", "http://host:8a", "https://user:key@host/v1", "https://host/v1?x=1"}) {
    EXPECT_THROW(Endpoint::parse(url), std::invalid_argument) << url;
  }
}

}  // namespace
}  // namespace d2k::judge
