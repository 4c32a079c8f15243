// tests/mcu/main.cpp: the board's test program: runs every suite and returns non-zero on any
// failure (with semihosting, main's return value is QEMU's exit status).
#include <cstdio>

#include "harness.hpp"

int main() {
  std::printf("claw MCU tests: %s, %s\n", CLAW_MCU_TARGET_DESCRIPTION, CLAW_MCU_BUILD_FLAGS);
  claw_mcu::run_jiminy_conformance();
  claw_mcu::run_closed_form();
  claw_mcu::run_no_allocation();
  claw_mcu::run_fliqc();
  return claw_mcu::finish();
}
