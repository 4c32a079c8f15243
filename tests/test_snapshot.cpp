// tests/test_snapshot.cpp: state() / set_state() of every stateful law and block restore it bit for
// bit (run k steps, snapshot, run j, restore, run j again: the same outputs), refusals touch
// nothing, and the logging field names (core/fields.hpp) match the state scalars one for one.
#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "claw/blocks/actuator.hpp"
#include "claw/blocks/pd_adapter.hpp"
#include "claw/blocks/pd_controller.hpp"
#include "claw/core/fields.hpp"
#include "claw/laws/activation.hpp"
#include "claw/laws/delay_line.hpp"
#include "claw/laws/pid.hpp"
#include "claw/laws/slew_limiter.hpp"
#include "claw/laws/stable_pd.hpp"
#include "claw/laws/velocity_servo.hpp"
#include "support/alloc_counter.hpp"
#include "support/bits.hpp"

using claw::Status;
using claw_test::same_bits;

namespace {

using VecX = Eigen::VectorXd;
constexpr Eigen::Index kJoints = 5;

// Step i's input for joint j and channel c: a deterministic function of (i, j, c), so a replay
// after set_state() sees the same inputs.
double input(int i, Eigen::Index j, int c) {
  return std::sin(0.37 * i + 1.3 * double(j) + 2.1 * c) + 0.2 * std::cos(1.7 * i * (c + 1));
}
VecX inputs(int i, Eigen::Index n, int c, double scale = 1.0) {
  VecX x(n);
  for (Eigen::Index j = 0; j < n; ++j) x(j) = scale * input(i, j, c);
  return x;
}

template <typename B, typename = void>
struct has_copy_state : std::false_type {};
template <typename B>
struct has_copy_state<B, std::void_t<decltype(std::declval<const B&>().copy_state(
                             std::declval<typename B::State&>()))>> : std::true_type {};

// Copies block's state into a snapshot of its size, as a real-time loop does.
template <typename Block>
void copy_into(const Block& block, typename Block::State& snapshot) {
  if constexpr (has_copy_state<Block>::value)
    block.copy_state(snapshot);
  else
    snapshot = block.state();
}

// Every state scalar, in the logging order (state_values).
template <typename Block>
VecX logged_state(const Block& block) {
  VecX values(claw::state_scalar_count(block));
  REQUIRE(claw::state_values(block, values) == Status::Ok);
  return values;
}

// step(block, i, out) runs step i and writes its output. k steps, snapshot, j steps recorded,
// restore, the same j steps again: outputs and final state bit for bit; the copy into a sized
// snapshot and set_state() allocate nothing.
template <typename Block, typename Step>
void check_rollback(Block& block, Step step, int k, int j) {
  VecX out;
  for (int i = 0; i < k; ++i) REQUIRE(step(block, i, out) == Status::Ok);
  typename Block::State snapshot = block.state();
  std::vector<VecX> recorded;
  for (int i = k; i < k + j; ++i) {
    REQUIRE(step(block, i, out) == Status::Ok);
    recorded.push_back(out);
  }
  const VecX final_state = logged_state(block);
  Status restored = Status::InvalidParameter;
  REQUIRE(claw_test::allocations_during([&] { restored = block.set_state(snapshot); }) == 0);
  REQUIRE(restored == Status::Ok);
  for (int i = k; i < k + j; ++i) {
    INFO("replayed step " << i);
    REQUIRE(step(block, i, out) == Status::Ok);
    CHECK(same_bits(out, recorded[std::size_t(i - k)]));
  }
  CHECK(same_bits(logged_state(block), final_state));
  REQUIRE(claw_test::allocations_during([&] { copy_into(block, snapshot); }) == 0);
  CHECK(block.set_state(snapshot) == Status::Ok);
  CHECK(same_bits(logged_state(block), final_state));
}

claw::PidSettings<double> rich_pid_settings(Eigen::Index n, bool simple) {
  claw::PidSettings<double> s;
  s.resize(n);
  s.kp.setConstant(30.0);
  s.ki.setConstant(12.0);
  s.kd.setConstant(0.6);
  s.dt = 0.004;
  if (!simple) {
    s.derivative = claw::DerivativeSource::Measurement;
    s.derivative_filter.setConstant(50.0);
    s.slew_rate.setConstant(3.0);
    s.anti_windup = claw::AntiWindup::BackCalculation;
    s.proportional_on_measurement = true;
  } else {
    s.anti_windup = claw::AntiWindup::ITermClamp;
    s.iterm_min.setConstant(-0.5);
    s.iterm_max.setConstant(0.5);
  }
  s.limits = claw::EffortLimits<double>::symmetric(4.0, n);
  return s;
}

auto pid_step = [](claw::Pid<double>& pid, int i, VecX& out) {
  out.resize(pid.size());
  return pid.update(inputs(i, pid.size(), 0), inputs(i, pid.size(), 1, 0.1),
                    inputs(i, pid.size(), 2, 0.5), inputs(i, pid.size(), 3),
                    inputs(i, pid.size(), 4), out);
};

}  // namespace

TEST_CASE("Pid state snapshots restore it bit for bit", "[pid][snapshot]") {
  for (bool simple : {true, false}) {
    INFO("fast path " << simple);
    claw::Pid<double> pid(kJoints);
    REQUIRE(pid.configure(rich_pid_settings(kJoints, simple)) == Status::Ok);
    check_rollback(pid, pid_step, 7, 12);
    // A snapshot taken with restarts pending carries them: joint 1 restarted before the snapshot.
    Eigen::Array<bool, Eigen::Dynamic, 1> mask =
        Eigen::Array<bool, Eigen::Dynamic, 1>::Zero(kJoints);
    mask(1) = true;
    REQUIRE(pid.reset_joints(mask) == Status::Ok);
    check_rollback(pid, pid_step, 0, 6);
    // After reset(q, u): the seeded measurement history is part of the state.
    REQUIRE(pid.reset(inputs(3, kJoints, 3), inputs(3, kJoints, 5, 0.1)) == Status::Ok);
    check_rollback(pid, pid_step, 0, 5);
  }
  // Fixed size.
  claw::Pid<double, 3> fixed;
  REQUIRE(fixed.configure(claw::PidSettings<double, 3>{}) == Status::Ok);
  claw::PidSettings<double, 3> s;
  s.kp.setConstant(5.0);
  s.ki.setConstant(2.0);
  s.kd.setConstant(0.1);
  REQUIRE(fixed.configure(s) == Status::Ok);
  check_rollback(
      fixed,
      [](claw::Pid<double, 3>& p, int i, VecX& out) {
        Eigen::Vector3d o;
        const Status st = p.update(inputs(i, 3, 0), inputs(i, 3, 3), inputs(i, 3, 4), o);
        out = o;
        return st;
      },
      4, 9);
}

TEST_CASE("Pid::set_state refuses bad snapshots and touches nothing", "[pid][snapshot]") {
  claw::Pid<double> pid(kJoints);
  REQUIRE(pid.configure(rich_pid_settings(kJoints, true)) == Status::Ok);
  VecX out;
  for (int i = 0; i < 6; ++i) REQUIRE(pid_step(pid, i, out) == Status::Ok);
  const VecX before = logged_state(pid);
  const auto good = pid.state();

  CHECK(pid.set_state(claw::Pid<double>::State(kJoints + 1)) == Status::SizeMismatch);
  auto bad = good;
  bad.restarted.resize(kJoints - 1);
  CHECK(pid.set_state(bad) == Status::SizeMismatch);
  bad = good;
  bad.previous_error(2) = std::numeric_limits<double>::quiet_NaN();
  CHECK(pid.set_state(bad) == Status::NonFiniteInput);
  bad = good;
  bad.filtered_derivative(0) = std::numeric_limits<double>::infinity();
  CHECK(pid.set_state(bad) == Status::NonFiniteInput);
  bad = good;
  bad.integral(4) = 0.75;  // I-term bounds are [-0.5, 0.5]
  CHECK(pid.set_state(bad) == Status::InvalidParameter);
  CHECK(same_bits(logged_state(pid), before));
  CHECK(claw::Pid<double>().set_state(claw::Pid<double>::State()) == Status::SizeMismatch);

  // A consistent any_restarted is rebuilt from the per-joint flags.
  bad = good;
  bad.restarted(3) = true;
  bad.any_restarted = false;
  REQUIRE(pid.set_state(bad) == Status::Ok);
  CHECK(pid.state().any_restarted);
}

TEST_CASE("PdController, PdAdapter and StablePd snapshots", "[pd][snapshot]") {
  claw::PdControllerXd controller(kJoints);
  claw::PdControllerXd::Settings cs = controller.settings();
  cs.kp.setConstant(40.0);
  cs.kd.setConstant(0.05);
  cs.effort_limit.setConstant(8.0);
  cs.bounds.lower.row(claw::kPosition).setConstant(-1.5);
  cs.bounds.upper.row(claw::kPosition).setConstant(1.5);
  cs.bounds.lower.row(claw::kVelocity).setConstant(-4.0);
  cs.bounds.upper.row(claw::kVelocity).setConstant(4.0);
  cs.bounds.lower.row(claw::kAcceleration).setConstant(-50.0);
  cs.bounds.upper.row(claw::kAcceleration).setConstant(50.0);
  REQUIRE(controller.configure(cs) == Status::Ok);
  claw::PdAdapterXd adapter(kJoints);
  claw::PdAdapterXd::Settings as = adapter.settings();
  as.order = claw::PdActionOrder::Position;
  REQUIRE(adapter.configure(as) == Status::Ok);

  // The pair: the adapter turns an action into a* every step, the controller runs with it.
  check_rollback(
      controller,
      [&](claw::PdControllerXd& c, int i, VecX& out) {
        VecX acceleration(kJoints);
        out.resize(kJoints);
        const Status a = adapter.update(inputs(i, kJoints, 0), c, acceleration);
        if (a != Status::Ok) return a;
        return c.update(inputs(i, kJoints, 3), inputs(i, kJoints, 4), acceleration, out);
      },
      5, 10);
  REQUIRE(adapter.set_state(adapter.state()) == Status::Ok);
  CHECK(claw::PdAdapterXd().set_state({}) == Status::SizeMismatch);
  CHECK(claw::state_scalar_count(adapter) == 0);

  auto bad = controller.state();
  bad(1, 2) = std::numeric_limits<double>::quiet_NaN();
  const VecX before = logged_state(controller);
  CHECK(controller.set_state(bad) == Status::NonFiniteInput);
  CHECK(controller.set_state(claw::PdControllerXd::State::Zero(3, kJoints + 1)) ==
        Status::SizeMismatch);
  CHECK(same_bits(logged_state(controller), before));

  claw::StablePd<double> stable(kJoints);
  CHECK(stable.set_state(stable.state()) == Status::Ok);
  CHECK(claw::StablePd<double>().set_state({}) == Status::SizeMismatch);
  CHECK(claw::state_scalar_count(stable) == 0);
}

TEST_CASE("SlewLimiter, VelocityServo and ActivationDynamics snapshots", "[snapshot]") {
  claw::SlewLimiter<double> slew(kJoints);
  REQUIRE(slew.configure(VecX::Constant(kJoints, 2.0), claw::SlewStart::FromMeasurement) ==
          Status::Ok);
  const auto slew_step = [](claw::SlewLimiter<double>& s, int i, VecX& out) {
    out.resize(s.size());
    return s.update(inputs(i, s.size(), 0), inputs(i, s.size(), 3), 0.01, out);
  };
  check_rollback(slew, slew_step, 0, 8);  // the snapshot holds the first-step flag
  check_rollback(slew, slew_step, 3, 8);
  auto bad_slew = slew.state();
  bad_slew.limited(0) = std::numeric_limits<double>::infinity();
  CHECK(slew.set_state(bad_slew) == Status::NonFiniteInput);
  bad_slew.limited.resize(2);
  CHECK(slew.set_state(bad_slew) == Status::SizeMismatch);

  claw::VelocityServo<double> servo(kJoints);
  claw::VelocityServo<double>::Settings vs = servo.settings();
  vs.kp.setConstant(0.1);
  vs.ki.setConstant(0.5);
  vs.kd.setConstant(0.01);
  vs.velocity_limit.setConstant(3.0);
  REQUIRE(servo.configure(vs) == Status::Ok);
  check_rollback(
      servo,
      [](claw::VelocityServo<double>& s, int i, VecX& out) {
        VecX limit(s.size());
        out.resize(s.size());
        return s.update(inputs(i, s.size(), 0), out, limit);
      },
      4, 9);

  claw::ActivationDynamics<double> activation(kJoints);
  claw::ActivationDynamics<double>::Settings acts = activation.settings();
  acts.kind = claw::ActivationKind::Filter;
  acts.time_constant.setConstant(0.05);
  acts.dt = 0.01;
  REQUIRE(activation.configure(acts) == Status::Ok);
  check_rollback(
      activation,
      [](claw::ActivationDynamics<double>& a, int i, VecX& out) {
        VecX rate(a.size());
        out.resize(a.size());
        return a.update(inputs(i, a.size(), 0), out, rate);
      },
      3, 7);
  auto bad_activation = activation.state();
  bad_activation.activation(4) = std::numeric_limits<double>::quiet_NaN();
  CHECK(activation.set_state(bad_activation) == Status::NonFiniteInput);
}

TEST_CASE("DelayLine and Actuator snapshots", "[actuator][snapshot]") {
  claw::DelayLine<double> line(kJoints);
  REQUIRE(line.set_delay(3) == Status::Ok);
  check_rollback(
      line,
      [](claw::DelayLine<double>& l, int i, VecX& out) {
        out.resize(l.size());
        return l.update(inputs(i, l.size(), 0), out);
      },
      4, 7);
  auto bad_line = line.state();
  bad_line.head = 3;  // D = 3: heads 0, 1, 2
  CHECK(line.set_state(bad_line) == Status::InvalidParameter);
  bad_line.head = -1;
  CHECK(line.set_state(bad_line) == Status::InvalidParameter);

  claw::Actuator<double> actuator(kJoints);
  REQUIRE(actuator.drive().configure(rich_pid_settings(kJoints, false)) == Status::Ok);
  REQUIRE(actuator.configure(2, claw::EffortLimits<double>::dc_motor(3.0, 5.0, 2.0, kJoints)) ==
          Status::Ok);
  const auto actuator_step = [](claw::Actuator<double>& a, int i, VecX& out) {
    out.resize(a.size());
    return a.update(inputs(i, a.size(), 0), inputs(i, a.size(), 1, 0.1),
                    inputs(i, a.size(), 2, 0.5), inputs(i, a.size(), 3), inputs(i, a.size(), 4),
                    out);
  };
  check_rollback(actuator, actuator_step, 6, 10);

  // All or nothing: a bad line leaves the drive untouched, a bad drive the lines.
  const VecX before = logged_state(actuator);
  auto bad = actuator.state();
  bad.drive.integral(0) += 1.0;
  bad.feedforward.buffer(0, 1) = std::numeric_limits<double>::quiet_NaN();
  CHECK(actuator.set_state(bad) == Status::NonFiniteInput);
  bad = actuator.state();
  bad.drive.previous_error(2) = std::numeric_limits<double>::infinity();
  bad.target.buffer(1, 1) += 1.0;
  CHECK(actuator.set_state(bad) == Status::NonFiniteInput);
  CHECK(same_bits(logged_state(actuator), before));
}

TEST_CASE("Logging field names: one per state scalar, in the order of state_values",
          "[snapshot][fields]") {
  const std::array<const char*, 2> joints = {"Hip", "Knee"};
  const auto names_of = [&](const auto& block) {
    std::vector<std::string> names;
    claw::state_field_names(block, joints, [&](const claw::FieldName& f) {
      std::string name(f.length(), '?');
      REQUIRE(f.write(&name[0], name.size() + 1) == name.size());
      names.push_back(name);
    });
    return names;
  };

  claw::Pid<double> pid(2);
  claw::PidSettings<double> s = rich_pid_settings(2, false);
  REQUIRE(pid.configure(s) == Status::Ok);
  VecX out(2);
  for (int i = 0; i < 3; ++i) REQUIRE(pid_step(pid, i, out) == Status::Ok);
  const std::vector<std::string> expected = {
      "integralTermHip",        "integralTermKnee",        "previousErrorHip", "previousErrorKnee",
      "previousMeasurementHip", "previousMeasurementKnee", "slewStateHip",     "slewStateKnee",
      "filteredDerivativeHip",  "filteredDerivativeKnee"};
  CHECK(names_of(pid) == expected);
  const VecX values = logged_state(pid);
  const auto& st = pid.state();
  const VecX members = (VecX(10) << st.integral, st.previous_error, st.previous_measurement,
                        st.slew_state, st.filtered_derivative)
                           .finished();
  CHECK(same_bits(values, members));
  std::vector<std::string> commands;
  claw::command_field_names(pid, joints, [&](const claw::FieldName& f) {
    std::string name(f.length(), '?');
    (void)f.write(&name[0], name.size() + 1);
    commands.push_back(name);
  });
  CHECK(commands == std::vector<std::string>{"commandEffortHip", "commandEffortKnee"});

  claw::PdControllerXd controller(2);
  CHECK(names_of(controller) ==
        std::vector<std::string>{"currentTargetPositionHip", "currentTargetPositionKnee",
                                 "currentTargetVelocityHip", "currentTargetVelocityKnee",
                                 "currentTargetAccelerationHip", "currentTargetAccelerationKnee"});

  // The actuator: the drive's 5 quantities, then D slots per line (slot 0 leaves next).
  claw::Actuator<double> actuator(2);
  REQUIRE(actuator.drive().configure(s) == Status::Ok);
  REQUIRE(actuator.configure(2, claw::EffortLimits<double>::none(2)) == Status::Ok);
  const auto names = names_of(actuator);
  REQUIRE(names.size() == std::size_t(claw::state_scalar_count(actuator)));
  CHECK(names.size() == std::size_t((5 + 3 * 2) * 2));
  CHECK(names[10] == "pendingTarget0_Hip");
  CHECK(names[13] == "pendingTarget1_Knee");
  CHECK(names[21] == "pendingFeedforward1_Knee");
  VecX actuator_out(2);
  // Three steps through D = 2: the line holds the second (next out) and the third q*.
  for (int i = 0; i < 3; ++i)
    REQUIRE(actuator.update(inputs(i, 2, 0), VecX::Zero(2), VecX::Zero(2), actuator_out) ==
            Status::Ok);
  const VecX logged = logged_state(actuator);
  CHECK(same_bits(logged.segment(10, 2), inputs(1, 2, 0)));  // pendingTarget0
  CHECK(same_bits(logged.segment(12, 2), inputs(2, 2, 0)));  // pendingTarget1
  VecX short_out(3);
  CHECK(claw::state_values(actuator, short_out) == Status::SizeMismatch);

  // FieldName::write cuts to the capacity and reports the full length.
  const claw::FieldName slot_name{"pendingTarget", 12, "Knee"};
  char small[8];
  CHECK(slot_name.write(small, sizeof small) == std::string("pendingTarget12_Knee").size());
  CHECK(std::string(small) == "pending");
  CHECK(slot_name.write(nullptr, 0) == 20);
}

TEST_CASE("A Pid's state stays finite, so every state() restores", "[pid][snapshot]") {
  const double big = std::numeric_limits<double>::max();
  const double inf = std::numeric_limits<double>::infinity();
  const claw::PidSettings<double> s = rich_pid_settings(2, false);
  // Bound pairs without a finite point are refused (clipping into them gives +-inf).
  claw::PidSettings<double> bad = s;
  bad.iterm_min(0) = bad.iterm_max(0) = inf;
  CHECK(bad.validate(2) == Status::InvalidParameter);
  bad = s;
  bad.target_min(1) = bad.target_max(1) = inf;
  CHECK(bad.validate(2) == Status::InvalidParameter);
  bad = s;
  bad.feedforward_min(1) = bad.feedforward_max(1) = -inf;
  CHECK(bad.validate(2) == Status::InvalidParameter);

  // The general path (a derivative filter) with I bounded, so that an overflowed error or
  // derivative leaves I+ finite and the effort clamp leaves the output finite. Joint 0: the error
  // overflows (q* = max, q = -max; derivative on the velocity error, finite); joint 1: the
  // filtered derivative on the measurement, dq / h. Each step would store +-inf; the joint is held
  // instead.
  for (int joint : {0, 1}) {
    INFO("joint " << joint);
    claw::PidSettings<double> general = s;
    general.derivative =
        joint == 0 ? claw::DerivativeSource::VelocityError : claw::DerivativeSource::Measurement;
    general.proportional_on_measurement = false;
    general.slew_rate.setConstant(inf);
    general.anti_windup = claw::AntiWindup::ITermClamp;
    general.iterm_min.setConstant(-0.5);
    general.iterm_max.setConstant(0.5);
    claw::Pid<double> pid(2);
    REQUIRE(pid.configure(general) == Status::Ok);
    VecX out = VecX::Zero(2);
    REQUIRE(pid.update(VecX::Zero(2), VecX::Zero(2), VecX::Zero(2), out) == Status::Ok);
    VecX target = VecX::Zero(2), q = VecX::Zero(2);
    if (joint == 0) target(0) = big, q(0) = -big;
    if (joint == 1) q(1) = 1e306;  // / h = 2.5e308
    const VecX held = out;
    const VecX before = logged_state(pid);
    CHECK(pid.update(target, q, VecX::Zero(2), out) == Status::NumericalOverflow);
    CHECK(same_bits(out.segment(joint, 1), held.segment(joint, 1)));
    for (int quantity = 0; quantity < 5; ++quantity)
      CHECK(same_bits(logged_state(pid).segment(2 * quantity + joint, 1),
                      before.segment(2 * quantity + joint, 1)));
    CHECK(pid.state().finite());
    CHECK(pid.set_state(pid.state()) == Status::Ok);
  }
}
