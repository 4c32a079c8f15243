// tests/support/banner.cpp: the configuration line of the test executable. With Catch2's prebuilt
// runner (CLAW_TEST_BANNER_AT_STARTUP) it is printed by a static initialiser, before main.
#include "support/banner.hpp"

#include <cstdio>

#include "claw/core/config.hpp"
#include "support/alloc_counter.hpp"
#include "support/reference.hpp"

namespace claw_test {

void print_banner() {
  std::printf("claw %s tests: exceptions %s, malloc counter %s, reference dir %s\n",
              CLAW_VERSION_STRING, CLAW_HAS_EXCEPTIONS ? "on" : "off",
              allocation_counting_available() ? "on" : "off (sanitizer build)",
              reference_dir().c_str());
}

#ifdef CLAW_TEST_BANNER_AT_STARTUP
namespace {
const bool banner_printed = (print_banner(), true);
}  // namespace
#endif

}  // namespace claw_test
