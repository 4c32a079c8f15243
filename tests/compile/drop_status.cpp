// tests/compile/drop_status.cpp: a caller that drops a claw::Status (CLAW_DROP_STATUS=1) or uses
// it (0). ctest compiles both with -Werror: [[nodiscard]] must make the first fail, the second
// pass.
#include "claw/laws/pid.hpp"

int main() {
  claw::Pid<double, 1> pid;
  const claw::PidSettings<double, 1> settings;
#if CLAW_DROP_STATUS
  pid.configure(settings);
  return 0;
#else
  return pid.configure(settings) == claw::Status::Ok ? 0 : 1;
#endif
}
