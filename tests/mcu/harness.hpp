// tests/mcu/harness.hpp: the board's test harness: named tests that count as passed, failed or
// skipped, failure messages through printf (semihosting), and the closing "N passed, M failed"
// line.
#pragma once

namespace claw_mcu {

/// One test: passes unless check() fails or skip() is called. Counted when it goes out of scope.
class Test {
 public:
  /// `format` names the test (printf style), e.g. Test t("integrate_zoh<double> id %d", id).
  explicit Test(const char* format, ...) __attribute__((format(printf, 2, 3)));
  ~Test();
  Test(const Test&) = delete;
  Test& operator=(const Test&) = delete;

  /// Records a failure with a message when `condition` is false; returns `condition`.
  bool check(bool condition, const char* format, ...) __attribute__((format(printf, 3, 4)));
  /// Marks the test skipped (not run), with the reason printed once.
  void skip(const char* format, ...) __attribute__((format(printf, 2, 3)));
  bool failed() const { return failures_ != 0; }

 private:
  char name_[96];
  int failures_ = 0;
  bool skipped_ = false;
};

/// The IEEE bits of x as "0x" and 16 hex digits (newlib's printf has no %a), for failure messages.
struct HexBits {
  char text[19];
};
HexBits hex_bits(double x);

/// Prints the suite's heading.
void begin_suite(const char* name);
/// Prints the totals; the last line is exactly "N passed, M failed". Returns 0 when nothing failed
/// and something passed, 1 otherwise (main's return value is QEMU's exit status).
int finish();

// The suites (one function per file; main calls each). A new suite is one more file and one more
// line in main.cpp.
void run_jiminy_conformance();
void run_closed_form();
void run_no_allocation();
void run_fliqc();

}  // namespace claw_mcu
