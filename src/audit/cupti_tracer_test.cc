#include "audit/cupti_tracer.h"

#include <filesystem>

#include <gtest/gtest.h>

namespace d2k::audit {
namespace {

// The real library where this machine has one: it loads, its entry points resolve and its
// version passes; without a device, starting fails with a TracerError, never a crash.
TEST(CuptiTracerTest, OpensTheToolkitsLibraryOrSaysWhy) {
  TracerOpening opening = open_cupti_tracer(nullptr, 0);
#ifdef D2K_HAVE_CUPTI
  if (std::filesystem::exists("/usr/local/cuda/lib64/libcupti.so")) {
    ASSERT_TRUE(opening.tracer) << opening.unavailable;
  }
#endif
  if (!opening.tracer) {
    EXPECT_FALSE(opening.unavailable.empty());
    return;
  }
  try {
    opening.tracer->start();
    const ActivityTrace trace = opening.tracer->stop();
    EXPECT_TRUE(trace.audit.kernels.empty());
    EXPECT_EQ(trace.audit.tracer.rfind("CUPTI ", 0), 0u) << trace.audit.tracer;
  } catch (const TracerError& error) {
    EXPECT_NE(std::string(error.what()), "");
  }
}

}  // namespace
}  // namespace d2k::audit
