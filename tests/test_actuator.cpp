// tests/test_actuator.cpp: the actuator pipeline: DelayLine (a step comes out D steps later, bit
// for bit), PositionEffortLimit (table points and midpoints exact, the end values outside), and
// Actuator equal to its composition written by hand, bit for bit, on random inputs.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>

#include "claw/blocks/actuator.hpp"
#include "support/alloc_counter.hpp"
#include "support/bits.hpp"

using claw::Status;
using claw_test::same_bits;

namespace {
using VecX = Eigen::VectorXd;
using Mask = Eigen::Array<bool, Eigen::Dynamic, 1>;
}  // namespace

TEST_CASE("DelayLine: a step comes out D steps later; D = 0 passes through", "[actuator][delay]") {
  const Eigen::Index n = 3;
  for (Eigen::Index d = 0; d <= 5; ++d) {
    INFO("delay " << d);
    claw::DelayLine<double, claw::Dynamic, claw::Dynamic, 5> line(n);
    REQUIRE(line.set_delay(d) == Status::Ok);
    VecX out(n);
    for (int k = 0; k < 12; ++k) {
      // Input k: the step (k >= 2) of height 1 + 0.1 j, per joint.
      VecX in(n);
      for (Eigen::Index j = 0; j < n; ++j) in(j) = k >= 2 ? 1.0 + 0.1 * double(j) : 0.0;
      REQUIRE(line.update(in, out) == Status::Ok);
      const bool arrived = k >= 2 + d;
      for (Eigen::Index j = 0; j < n; ++j)
        REQUIRE(
            same_bits(out.segment(j, 1), VecX::Constant(1, arrived ? 1.0 + 0.1 * double(j) : 0.0)));
    }
  }
  claw::DelayLine<double, 2, 2, 3> line;
  REQUIRE(line.set_delay(4) == Status::InvalidParameter);
  REQUIRE(line.set_delay(-1) == Status::InvalidParameter);
  REQUIRE(line.set_delay(3) == Status::Ok);
  // A held command: the first D outputs are the value the line was reset to.
  REQUIRE(line.reset(Eigen::Vector2d(0.5, -0.5)) == Status::Ok);
  Eigen::Vector2d out, in(7.0, 8.0);
  for (int k = 0; k < 3; ++k) {
    REQUIRE(line.update(in, out) == Status::Ok);
    REQUIRE(out == Eigen::Vector2d(0.5, -0.5));
  }
  // In place (out is the input), then NaN refused with nothing touched.
  Eigen::Vector2d inout(1.0, 2.0);
  REQUIRE(line.update(inout, inout) == Status::Ok);
  REQUIRE(inout == Eigen::Vector2d(7.0, 8.0));
  const Eigen::Vector2d bad(std::numeric_limits<double>::quiet_NaN(), 0.0);
  out.setConstant(-3.0);
  REQUIRE(line.update(bad, out) == Status::NonFiniteInput);
  REQUIRE(out == Eigen::Vector2d(-3.0, -3.0));
  REQUIRE(line.update(in, out) == Status::Ok);  // the line did not advance on the refusal
  REQUIRE(out == Eigen::Vector2d(7.0, 8.0));
  // revert takes back exactly the last update, also one that wrapped the ring around.
  for (int updates = 1; updates <= 4; ++updates) {
    INFO(updates << " updates before the revert");
    claw::DelayLine<double, 2, 2, 3> reverted, reference;
    REQUIRE(reverted.set_delay(3) == Status::Ok);
    REQUIRE(reference.set_delay(3) == Status::Ok);
    Eigen::Vector2d a, b;
    for (int k = 0; k < updates; ++k) {
      const Eigen::Vector2d input(k + 1.0, -k - 1.0);
      REQUIRE(reverted.update(input, a) == Status::Ok);
      if (k + 1 < updates) REQUIRE(reference.update(input, b) == Status::Ok);
    }
    reverted.revert(a);
    for (int k = 0; k < 5; ++k) {
      const Eigen::Vector2d input(10.0 * k, 0.5 * k);
      REQUIRE(reverted.update(input, a) == Status::Ok);
      REQUIRE(reference.update(input, b) == Status::Ok);
      REQUIRE(a == b);
    }
  }
  // Restarting one joint empties only its line.
  Mask first(2);
  first << true, false;
  REQUIRE(line.reset_joints(first) == Status::Ok);
  REQUIRE(line.update(in, out) == Status::Ok);
  REQUIRE(out == Eigen::Vector2d(0.0, 8.0));
  REQUIRE(line.update(in, out) == Status::Ok);  // the in-place input (1, 2) of joint 1 comes out
  REQUIRE(out == Eigen::Vector2d(0.0, 2.0));
}

TEST_CASE("PositionEffortLimit: table points and midpoints exact, end values outside",
          "[actuator][position-limit]") {
  claw::PositionEffortLimit<double, 2, 2, 4> table;
  Eigen::Matrix<double, 4, 2> position, limit;
  position << -1.0, 0.0,  //
      0.0, 0.5,           //
      0.5, 1.0,           //
      2.0, 3.0;
  limit << 4.0, 10.0,  //
      8.0, 6.0,        //
      2.0, 6.0,        //
      0.0, 1.0;
  REQUIRE(table.configure(position, limit) == Status::Ok);
  for (Eigen::Index j = 0; j < 2; ++j)
    for (Eigen::Index i = 0; i < 4; ++i) {
      REQUIRE(table.limit(j, position(i, j)) == limit(i, j));
      if (i + 1 < 4) {
        const double mid = 0.5 * (position(i, j) + position(i + 1, j));
        REQUIRE(table.limit(j, mid) == 0.5 * (limit(i, j) + limit(i + 1, j)));
      }
    }
  REQUIRE(table.limit(0, -5.0) == 4.0);  // below the table: the first value
  REQUIRE(table.limit(0, 9.0) == 0.0);   // above: the last
  REQUIRE(table.limit(1, -1.0) == 10.0);
  Eigen::Vector2d u(100.0, -100.0);
  REQUIRE(table.clamp(u, Eigen::Vector2d(0.0, 0.25)) == Status::Ok);
  REQUIRE(u == Eigen::Vector2d(8.0, -8.0));
  // Refused tables keep the old one.
  Eigen::Matrix<double, 2, 2> bad_position, bad_limit;
  bad_position << 0.0, 0.0, 0.0, 1.0;  // joint 0 not increasing
  bad_limit << 1.0, 1.0, 1.0, 1.0;
  REQUIRE(table.configure(bad_position, bad_limit) == Status::InvalidParameter);
  bad_position(1, 0) = 1.0;
  bad_limit(0, 1) = -1.0;  // a negative limit
  REQUIRE(table.configure(bad_position, bad_limit) == Status::InvalidParameter);
  REQUIRE(table.points() == 4);
  REQUIRE(table.configure(Eigen::Matrix<double, 0, 2>(), Eigen::Matrix<double, 0, 2>()) ==
          Status::Ok);
  REQUIRE(std::isinf(table.limit(0, 0.0)));
}

TEST_CASE("Actuator equals its composition written by hand", "[actuator]") {
  const Eigen::Index n = 10;
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  for (int delay = 0; delay <= 4; ++delay) {
    INFO("delay " << delay);
    claw::Actuator<double> actuator(n);
    claw::PidSettings<double, claw::Dynamic> s;
    s.resize(n);
    s.kp.setConstant(60.0);
    s.ki.setConstant(20.0);
    s.kd.setConstant(3.0);
    s.anti_windup = claw::AntiWindup::IntegralClamp;
    s.integral_max.setConstant(0.2);
    s.limits = claw::EffortLimits<double, claw::Dynamic>::symmetric(40.0, n);
    s.dt = 0.002;
    // Delay 4: a drive off the simple path, so the stages run one after another instead of in
    // one pass.
    s.proportional_on_measurement = delay == 4;
    REQUIRE(actuator.drive().configure(s) == Status::Ok);
    REQUIRE(actuator.drive().on_simple_path() == (delay != 4));
    // Delay 3: a no-load speed so small that v / vlim overflows for most joints (the clamp's
    // second branch, through effort_interval).
    const double no_load_speed = delay == 3 ? 1e-308 : 3.0;
    const auto motor =
        claw::EffortLimits<double, claw::Dynamic>::dc_motor(25.0, 35.0, no_load_speed, n);
    REQUIRE(actuator.configure(delay, motor) == Status::Ok);
    Eigen::MatrixXd position(3, n), limit(3, n);
    for (Eigen::Index j = 0; j < n; ++j) {
      position.col(j) << -1.0, 0.0, 1.0;
      limit.col(j) << 10.0, 30.0, 15.0;
    }
    REQUIRE(actuator.position_limit().configure(position, limit) == Status::Ok);

    // The same pipeline by hand: three lines, a Pid, the clamps.
    claw::DelayLine<double> lines[3] = {claw::DelayLine<double>(n), claw::DelayLine<double>(n),
                                        claw::DelayLine<double>(n)};
    for (auto& line : lines) REQUIRE(line.set_delay(delay) == Status::Ok);
    claw::Pid<double> pid(n);
    REQUIRE(pid.configure(s) == Status::Ok);
    claw::PositionEffortLimit<double> table(n);
    REQUIRE(table.configure(position, limit) == Status::Ok);

    VecX out(n), expected(n), target(n), tv(n), ff(n), q(n), v(n), dt(n), dtv(n), dff(n);
    for (int k = 0; k < 60; ++k) {
      for (Eigen::Index j = 0; j < n; ++j) {
        target(j) = uniform(rng);
        tv(j) = uniform(rng);
        ff(j) = uniform(rng);
        q(j) = 1.2 * uniform(rng);
        v(j) = 4.0 * uniform(rng);
      }
      const bool full = k % 3 != 0;
      Status status = Status::InvalidParameter;
      REQUIRE(claw_test::allocations_during([&] {
                status = full ? actuator.update(target, tv, ff, q, v, out)
                              : actuator.update(target, q, v, out);
              }) == 0);
      REQUIRE(status == Status::Ok);
      REQUIRE(lines[0].update(target, dt) == Status::Ok);
      if (full) {
        REQUIRE(lines[1].update(tv, dtv) == Status::Ok);
        REQUIRE(lines[2].update(ff, dff) == Status::Ok);
        REQUIRE(pid.update(dt, dtv, dff, q, v, expected) == Status::Ok);
      } else {
        REQUIRE(pid.update(dt, q, v, expected) == Status::Ok);
      }
      REQUIRE(claw::clamp_effort(motor, expected, v) == Status::Ok);
      REQUIRE(table.clamp(expected, q) == Status::Ok);
      INFO("step " << k);
      REQUIRE(same_bits(out, expected));
    }
    // NaN/Inf in any input: refused with nothing touched, also when only the drive's inputs (q, v)
    // are bad and the delay lines had already taken the step: the next steps still match.
    VecX bad = target;
    bad(3) = std::numeric_limits<double>::infinity();
    const VecX held = out;
    REQUIRE(actuator.update(bad, q, v, out) == Status::NonFiniteInput);
    REQUIRE(actuator.update(target, bad, v, out) == Status::NonFiniteInput);
    REQUIRE(actuator.update(target, tv, ff, q, bad, out) == Status::NonFiniteInput);
    REQUIRE(actuator.update(target, tv, bad, q, v, out) == Status::NonFiniteInput);
    REQUIRE(actuator.update(target, bad, ff, q, v, out) == Status::NonFiniteInput);
    REQUIRE(same_bits(out, held));
    for (int k = 0; k < 5; ++k) {
      target.setConstant(0.1 * k);
      REQUIRE(actuator.update(target, tv, ff, q, v, out) == Status::Ok);
      REQUIRE(lines[0].update(target, dt) == Status::Ok);
      REQUIRE(lines[1].update(tv, dtv) == Status::Ok);
      REQUIRE(lines[2].update(ff, dff) == Status::Ok);
      REQUIRE(pid.update(dt, dtv, dff, q, v, expected) == Status::Ok);
      REQUIRE(claw::clamp_effort(motor, expected, v) == Status::Ok);
      REQUIRE(table.clamp(expected, q) == Status::Ok);
      REQUIRE(same_bits(out, expected));
    }
  }
}

TEST_CASE("Actuator restarts: a held target, a mask, a range", "[actuator][reset]") {
  const Eigen::Index n = 4;
  claw::PidSettings<double> s;
  s.resize(n);
  s.kp.setConstant(50.0);
  s.kd.setConstant(1.0);
  const VecX q = VecX::LinSpaced(n, -2.0, 1.0), v = VecX::Zero(n);
  auto make = [&] {
    claw::Actuator<double> actuator(n);
    REQUIRE(actuator.drive().configure(s) == Status::Ok);
    REQUIRE(actuator.configure(2, claw::EffortLimits<double>::none(n)) == Status::Ok);
    return actuator;
  };
  VecX out(n);
  // Held at the measured q, the target q gives no effort from the first step on; emptied lines
  // would give kp (0 - q) for two steps.
  claw::Actuator<double> held = make();
  REQUIRE(held.reset(q) == Status::Ok);
  for (int k = 0; k < 4; ++k) {
    REQUIRE(held.update(q, q, v, out) == Status::Ok);
    REQUIRE(out.isZero(0.0));
  }
  claw::Actuator<double> empty = make();
  REQUIRE(empty.update(q, q, v, out) == Status::Ok);
  REQUIRE(same_bits(out, (50.0 * (VecX::Zero(n) - q)).eval()));
  // One robot of two (joints 2, 3) restarted by range and by mask: the same numbers; restarted
  // with a held target, its joints hold.
  claw::Actuator<double> by_range = make(), by_mask = make(), by_held = make();
  VecX out_range(n), out_mask(n), out_held(n);
  for (int k = 0; k < 3; ++k) {
    const VecX target = VecX::Constant(n, 0.3 * k);
    REQUIRE(by_range.update(target, q, v, out_range) == Status::Ok);
    REQUIRE(by_mask.update(target, q, v, out_mask) == Status::Ok);
    REQUIRE(by_held.update(target, q, v, out_held) == Status::Ok);
  }
  Mask robot = Mask::Constant(n, false);
  robot.segment(2, 2).setConstant(true);
  REQUIRE(by_range.reset_joints(2, 2) == Status::Ok);
  REQUIRE(by_mask.reset_joints(robot) == Status::Ok);
  REQUIRE(by_held.reset_joints(robot, q) == Status::Ok);
  REQUIRE(by_range.reset_joints(3, 2) == Status::SizeMismatch);
  for (int k = 0; k < 3; ++k) {
    const VecX target = q;
    REQUIRE(by_range.update(target, q, v, out_range) == Status::Ok);
    REQUIRE(by_mask.update(target, q, v, out_mask) == Status::Ok);
    REQUIRE(by_held.update(target, q, v, out_held) == Status::Ok);
    REQUIRE(same_bits(out_range, out_mask));
    REQUIRE(same_bits(out_held.head(2), out_mask.head(2)));  // the other robot: as before
    REQUIRE(out_held.tail(2).isZero(0.0));                   // held at q from the restart on
  }
}
