// tests/mcu/firmware_pd_block.cpp: gym_jiminy's control stack as firmware, for the size report: a
// PdAdapter<float, 7> turning a position action into target accelerations every 40 ms, and a
// PdController<float, 7> (ZOH + PD + effort clip) at 1 kHz. Volatile arrays stand for sensors and
// actuators. Runs under QEMU too: returns 0 when every call returned Ok.
#include "claw/blocks/pd_adapter.hpp"
#include "claw/blocks/pd_controller.hpp"

namespace {
constexpr int kJoints = 7;
volatile float g_position[kJoints];
volatile float g_velocity[kJoints];
volatile float g_action[kJoints] = {0.5f, -0.5f, 0.25f, -0.25f, 1.0f, -1.0f, 0.0f};
volatile float g_effort[kJoints];
}  // namespace

int main() {
  using Vector7f = claw::Vector<float, kJoints>;
  claw::PdController<float, kJoints> controller;
  auto settings = controller.settings();
  settings.bounds.lower.row(claw::kPosition).setConstant(-2.0f);
  settings.bounds.lower.row(claw::kVelocity).setConstant(-3.0f);
  settings.bounds.lower.row(claw::kAcceleration).setConstant(-20.0f);
  settings.bounds.upper = -settings.bounds.lower;
  settings.kp.setConstant(100.0f);
  settings.kd.setConstant(0.01f);
  settings.effort_limit.setConstant(50.0f);
  settings.control_dt = 1e-3f;
  bool ok = controller.configure(settings) == claw::Status::Ok;
  claw::PdAdapter<float, kJoints> adapter;
  auto adapter_settings = adapter.settings();
  adapter_settings.order = claw::PdActionOrder::Position;
  adapter_settings.step_dt = 0.04f;
  ok &= adapter.configure(adapter_settings) == claw::Status::Ok;

  Vector7f q, v, action, target = Vector7f::Zero(), tau = Vector7f::Zero();
  for (int j = 0; j < kJoints; ++j) {
    q(j) = g_position[j];
    v(j) = g_velocity[j];
  }
  ok &= controller.reset(q, v, tau) == claw::Status::Ok;
  for (int step = 0; step < 1000; ++step) {
    for (int j = 0; j < kJoints; ++j) {
      q(j) = g_position[j];
      v(j) = g_velocity[j];
      action(j) = g_action[j];
    }
    if (step % 40 == 0) ok &= adapter.update(action, controller, target) == claw::Status::Ok;
    ok &= controller.update(q, v, target, tau) == claw::Status::Ok;
    for (int j = 0; j < kJoints; ++j) g_effort[j] = tau(j);
  }
  return ok ? 0 : 1;
}
