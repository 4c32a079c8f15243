// tests/mcu/firmware_pid_zoh.cpp: a minimal 7-joint float control loop for the size report: the
// command state integrated by integrate_zoh (viable mode) at 1 kHz, tracked by claw::Pid<float, 7>
// (back-calculation anti-windup, effort bounds). Sensors and actuators are volatile arrays, as
// memory-mapped I/O would be. Runs under QEMU too: returns 0 when every call returned Ok.
#include "claw/integrators/zoh.hpp"
#include "claw/laws/pid.hpp"

namespace {
constexpr int kJoints = 7;
volatile float g_position[kJoints];
volatile float g_velocity[kJoints];
volatile float g_acceleration_command[kJoints] = {1.0f, -1.0f, 0.5f, -0.5f, 2.0f, -2.0f, 0.0f};
volatile float g_effort[kJoints];
}  // namespace

int main() {
  using Vector7f = claw::Vector<float, kJoints>;
  const float dt = 1e-3f;
  claw::StateMatrix<float, kJoints> state = claw::StateMatrix<float, kJoints>::Zero(), lower, upper;
  lower.row(claw::kPosition).setConstant(-2.0f);
  lower.row(claw::kVelocity).setConstant(-3.0f);
  lower.row(claw::kAcceleration).setConstant(-20.0f);
  upper = -lower;

  claw::Pid<float, kJoints> pid;
  auto settings = pid.settings();
  settings.kp.setConstant(200.0f);
  settings.ki.setConstant(50.0f);
  settings.kd.setConstant(5.0f);
  settings.dt = dt;
  settings.anti_windup = claw::AntiWindup::BackCalculation;
  settings.limits.kind = claw::EffortLimitKind::Bounds;
  settings.limits.lower.setConstant(-40.0f);
  settings.limits.upper.setConstant(40.0f);
  bool ok = pid.configure(settings) == claw::Status::Ok;

  Vector7f q, v, feedforward = Vector7f::Zero(), tau = Vector7f::Zero();
  for (int step = 0; step < 1000; ++step) {
    for (int j = 0; j < kJoints; ++j) {
      q(j) = g_position[j];
      v(j) = g_velocity[j];
      state(claw::kAcceleration, j) = g_acceleration_command[j];
    }
    ok &= claw::integrate_zoh(state, lower, upper, dt, claw::ZohMode::Viable) == claw::Status::Ok;
    const Vector7f target = state.row(claw::kPosition).transpose();
    const Vector7f target_velocity = state.row(claw::kVelocity).transpose();
    ok &= pid.update(target, target_velocity, feedforward, q, v, tau) == claw::Status::Ok;
    for (int j = 0; j < kJoints; ++j) g_effort[j] = tau(j);
  }
  return ok ? 0 : 1;
}
