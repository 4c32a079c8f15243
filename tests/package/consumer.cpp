// tests/package/consumer.cpp: a downstream program that uses claw through an install or a
// subproject. It runs one PD control period and checks the effort against the closed form; exit 0
// on success.
#include <claw/claw.hpp>
#include <cstdio>

// The value of __cplusplus for the standard the consumer asked for (-std=c++20: 202002L); the
// flags a package adds must leave it at least that.
#ifdef CLAW_CONSUMER_CPLUSPLUS
static_assert(__cplusplus >= CLAW_CONSUMER_CPLUSPLUS,
              "the package's flags lowered the C++ standard");
#endif

int main() {
  claw::PdController<double, 2> controller;
  claw::PdController<double, 2>::Settings settings = controller.settings();
  settings.kp << 100.0, 50.0;
  settings.kd << 0.1, 0.0;
  settings.effort_limit << 1000.0, 1000.0;
  settings.bounds.lower.row(2).setConstant(-10.0);
  settings.bounds.upper.row(2).setConstant(10.0);
  if (controller.configure(settings) != claw::Status::Ok) return 1;
  Eigen::Vector2d q(0.5, -0.2), v(1.0, 0.0), out;
  if (controller.reset(q, v, out) != claw::Status::Ok) return 2;
  // The command state starts at the measurement: zero effort.
  if (out(0) != 0.0 || out(1) != 0.0) return 3;
  std::printf("claw %s consumer: ok\n", CLAW_VERSION_STRING);
  return 0;
}
