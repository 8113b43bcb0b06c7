// Shared main for every test binary: quiet logs unless VFX_TEST_LOG is set.
#include <gtest/gtest.h>

#include <cstdlib>

#include "core/log.hpp"

int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    const char* level = std::getenv("VFX_TEST_LOG");
    vfx::set_log_level(level ? level : "warn");
    return RUN_ALL_TESTS();
}
