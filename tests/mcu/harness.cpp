// tests/mcu/harness.cpp: the board's test harness (see harness.hpp). Output goes through newlib's
// printf, which semihosting forwards to QEMU's terminal.
#include "harness.hpp"

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace claw_mcu {
namespace {
int g_passed = 0;
int g_failed = 0;
int g_skipped = 0;
constexpr int kMaxMessagesPerTest = 8;
}  // namespace

Test::Test(const char* format, ...) {
  va_list args;
  va_start(args, format);
  std::vsnprintf(name_, sizeof name_, format, args);
  va_end(args);
}

Test::~Test() {
  if (skipped_ && failures_ == 0) {
    ++g_skipped;
  } else if (failures_ == 0) {
    ++g_passed;
  } else {
    ++g_failed;
    std::printf("FAILED: %s (%d check(s))\n", name_, failures_);
  }
}

namespace {
/// "  <prefix><name>: <message>\n"
void print_line(const char* prefix, const char* name, const char* format, va_list args) {
  std::printf("  %s%s: ", prefix, name);
  std::vprintf(format, args);
  std::printf("\n");
}
}  // namespace

bool Test::check(bool condition, const char* format, ...) {
  if (condition) return true;
  if (failures_++ < kMaxMessagesPerTest) {
    va_list args;
    va_start(args, format);
    print_line("", name_, format, args);
    va_end(args);
  }
  return false;
}

void Test::skip(const char* format, ...) {
  if (skipped_) return;
  skipped_ = true;
  va_list args;
  va_start(args, format);
  print_line("skipped ", name_, format, args);
  va_end(args);
}

HexBits hex_bits(double x) {
  std::uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  HexBits out{};
  out.text[0] = '0';
  out.text[1] = 'x';
  for (int k = 0; k < 16; ++k) out.text[2 + k] = "0123456789abcdef"[(bits >> (60 - 4 * k)) & 0xF];
  out.text[18] = '\0';
  return out;
}

void begin_suite(const char* name) { std::printf("== %s\n", name); }

int finish() {
  std::printf("%d skipped\n", g_skipped);
  std::printf("%d passed, %d failed\n", g_passed, g_failed);
  return (g_failed == 0 && g_passed > 0) ? 0 : 1;
}

}  // namespace claw_mcu
