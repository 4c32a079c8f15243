// tests/test_reset_joints.cpp: restarting a subset of joints (Pid::reset_joints,
// PdController::reset_joints): the selected joints continue exactly as if the whole law had been
// restarted, the others exactly as if nothing had happened, bit for bit.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>

#include "claw/blocks/pd_controller.hpp"
#include "claw/laws/pid.hpp"
#include "support/alloc_counter.hpp"
#include "support/bits.hpp"

using claw::Status;
using claw::detail::same_bits;  // scalars
using claw_test::same_bits;     // vectors and matrices

namespace {

using VecX = Eigen::VectorXd;
using Mask = Eigen::Array<bool, Eigen::Dynamic, 1>;

// Settings that give every joint a history: each derivative source, the filter, the slew limiter
// with each first-step rule, back-calculation and proportional on measurement.
claw::PidSettings<double, claw::Dynamic> history_settings(Eigen::Index n, int variant) {
  claw::PidSettings<double, claw::Dynamic> s;
  s.resize(n);
  s.kp.setConstant(30.0);
  s.ki.setConstant(8.0);
  s.kd.setConstant(0.7);
  s.dt = 0.004;
  s.derivative = static_cast<claw::DerivativeSource>(variant % 3);
  s.derivative_from_zero_error = variant % 2 == 0;
  s.derivative_filter.setConstant(variant % 2 == 0 ? 60.0 : 0.0);
  s.slew_rate.setConstant(2.0);
  s.slew_start = static_cast<claw::SlewStart>(variant % 3);
  s.anti_windup = claw::AntiWindup::BackCalculation;
  s.limits = claw::EffortLimits<double, claw::Dynamic>::symmetric(4.0, n);
  s.proportional_on_measurement = variant >= 3;
  return s;
}

}  // namespace

TEST_CASE("Pid::reset_joints restarts exactly the selected joints", "[pid][reset]") {
  const Eigen::Index n = 12;
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  for (int variant = 0; variant < 6; ++variant) {
    INFO("variant " << variant);
    const auto s = history_settings(n, variant);
    // partial: reset_joints at step k; untouched: never reset; restarted: reset() at step k.
    claw::Pid<double> partial(n), untouched(n), restarted(n);
    for (auto* pid : {&partial, &untouched, &restarted}) REQUIRE(pid->configure(s) == Status::Ok);
    Mask selected(n);
    for (Eigen::Index j = 0; j < n; ++j) selected(j) = (j * 7 + variant) % 3 == 0;
    VecX out_partial = VecX::Zero(n), out_untouched = VecX::Zero(n), out_restarted = VecX::Zero(n);
    for (int k = 0; k < 40; ++k) {
      if (k == 15) {
        Status status = Status::InvalidParameter;
        REQUIRE(claw_test::allocations_during([&] { status = partial.reset_joints(selected); }) ==
                0);
        REQUIRE(status == Status::Ok);
        restarted.reset();
      }
      VecX target(n), q(n), v(n);
      for (Eigen::Index j = 0; j < n; ++j) {
        target(j) = 0.5 * uniform(rng);
        q(j) = 0.3 * std::sin(0.2 * k + double(j)) + 0.01 * uniform(rng);
        v(j) = uniform(rng);
      }
      REQUIRE(partial.update(target, q, v, out_partial) == Status::Ok);
      REQUIRE(untouched.update(target, q, v, out_untouched) == Status::Ok);
      REQUIRE(restarted.update(target, q, v, out_restarted) == Status::Ok);
      for (Eigen::Index j = 0; j < n; ++j) {
        INFO("step " << k << " joint " << j);
        const bool as_restarted = k >= 15 && selected(j);
        const auto& other = as_restarted ? restarted : untouched;
        const VecX& other_out = as_restarted ? out_restarted : out_untouched;
        REQUIRE(same_bits(out_partial(j), other_out(j)));
        REQUIRE(same_bits(partial.integral_term()(j), other.integral_term()(j)));
        REQUIRE(same_bits(partial.slew_state()(j), other.slew_state()(j)));
      }
    }
  }
}

TEST_CASE("Pid::reset_joints by index range; wrong sizes and ranges touch nothing",
          "[pid][reset]") {
  const Eigen::Index n = 6;
  const auto s = history_settings(n, 1);
  claw::Pid<double> by_range(n), by_mask(n);
  REQUIRE(by_range.configure(s) == Status::Ok);
  REQUIRE(by_mask.configure(s) == Status::Ok);
  VecX out_range(n), out_mask(n);
  const VecX target = VecX::LinSpaced(n, -0.4, 0.6), v = VecX::Zero(n);
  for (int k = 0; k < 5; ++k) {
    const VecX q = VecX::Constant(n, 0.05 * k);
    REQUIRE(by_range.update(target, q, v, out_range) == Status::Ok);
    REQUIRE(by_mask.update(target, q, v, out_mask) == Status::Ok);
  }
  const VecX integral = by_range.integral_term();
  REQUIRE(by_range.reset_joints(-1, 2) == Status::SizeMismatch);
  REQUIRE(by_range.reset_joints(5, 2) == Status::SizeMismatch);
  REQUIRE(by_range.reset_joints(0, -1) == Status::SizeMismatch);
  REQUIRE(by_range.reset_joints(Mask::Constant(n + 1, true)) == Status::SizeMismatch);
  REQUIRE(same_bits(by_range.integral_term(), integral));
  // Joints 2 and 3: one robot of three in a batch of 2-joint robots.
  REQUIRE(by_range.reset_joints(2, 2) == Status::Ok);
  Mask middle = Mask::Constant(n, false);
  middle.segment(2, 2).setConstant(true);
  REQUIRE(by_mask.reset_joints(middle) == Status::Ok);
  REQUIRE(by_range.reset_joints(4, 0) == Status::Ok);  // an empty range restarts nothing
  for (int k = 0; k < 5; ++k) {
    const VecX q = VecX::Constant(n, 0.2 - 0.03 * k);
    REQUIRE(by_range.update(target, q, v, out_range) == Status::Ok);
    REQUIRE(by_mask.update(target, q, v, out_mask) == Status::Ok);
    REQUIRE(same_bits(out_range, out_mask));
    REQUIRE(same_bits(by_range.integral_term(), by_mask.integral_term()));
  }
  REQUIRE(by_range.integral_term()(2) != integral(2));
}

TEST_CASE("PdController::reset_joints resets the selected joints as reset() does, only them",
          "[pd][reset]") {
  using Controller = claw::PdController<double>;
  const Eigen::Index n = 8;
  Controller partial(n), whole(n);
  Controller::Settings s = partial.settings();
  s.kp.setConstant(50.0);
  s.kd.setConstant(2.0);
  s.effort_limit.setConstant(30.0);
  REQUIRE(partial.configure(s) == Status::Ok);
  REQUIRE(whole.configure(s) == Status::Ok);
  const VecX q0 = VecX::LinSpaced(n, -0.5, 0.5), v0 = VecX::Constant(n, 0.1);
  VecX out_partial(n), out_whole(n);
  REQUIRE(partial.reset(q0, v0, out_partial) == Status::Ok);
  for (int k = 0; k < 10; ++k)
    REQUIRE(partial.update(q0, v0, VecX::Constant(n, 3.0), out_partial) == Status::Ok);
  const auto state_before = partial.command_state();
  const VecX out_before = out_partial;
  Mask selected = Mask::Constant(n, false);
  selected(1) = selected(6) = true;
  const VecX q1 = VecX::LinSpaced(n, 0.2, -0.3), v1 = VecX::Constant(n, -0.2);
  VecX q_bad = q1;
  q_bad(1) = std::numeric_limits<double>::quiet_NaN();
  REQUIRE(partial.reset_joints(selected, q_bad, v1, out_partial) == Status::NonFiniteInput);
  REQUIRE(partial.reset_joints(Mask::Constant(n - 1, true), q1, v1, out_partial) ==
          Status::SizeMismatch);
  REQUIRE(same_bits(partial.command_state(), state_before));
  Status status = Status::InvalidParameter;
  REQUIRE(claw_test::allocations_during(
              [&] { status = partial.reset_joints(selected, q1, v1, out_partial); }) == 0);
  REQUIRE(status == Status::Ok);
  REQUIRE(whole.reset(q1, v1, out_whole) == Status::Ok);
  for (Eigen::Index j = 0; j < n; ++j) {
    INFO("joint " << j);
    if (selected(j)) {
      REQUIRE(same_bits(partial.command_state().col(j), whole.command_state().col(j)));
      REQUIRE(same_bits(out_partial(j), out_whole(j)));
    } else {
      REQUIRE(same_bits(partial.command_state().col(j), state_before.col(j)));
      REQUIRE(same_bits(out_partial(j), out_before(j)));
    }
  }
}
