// tests/test_pid_period.cpp: Pid::update with the period h of each call: the fixed-period update's
// numbers bit for bit at h = dt, each term's closed form under a varying h, and the time-step
// contract (check_time_step) for a bad or empty period.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>

#include "claw/laws/pid.hpp"
#include "support/bits.hpp"

using claw::Status;

namespace {
using V1 = Eigen::Matrix<double, 1, 1>;
using Pid1 = claw::Pid<double, 1>;

using claw_test::same_bits;

claw::PidSettings<double, 1> gains(double kp, double ki, double kd) {
  claw::PidSettings<double, 1> s;
  s.kp << kp;
  s.ki << ki;
  s.kd << kd;
  s.dt = 0.5;  // never the period of a call below: a test fails if dt were read
  return s;
}

// Periods 1 ms .. 3 ms, as a jittery control loop measures them.
Eigen::VectorXd jittery_periods(Eigen::Index count) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> period(1e-3, 3e-3);
  Eigen::VectorXd h(count);
  for (Eigen::Index k = 0; k < count; ++k) h(k) = period(rng);
  return h;
}

// The error sequence the closed forms read: q = 0 and q* = e_k.
double error_at(int k) { return std::sin(0.3 * k) + 0.1 * k; }
}  // namespace

TEMPLATE_TEST_CASE("update with h = dt gives the fixed-period update's numbers bit for bit",
                   "[pid][period]", float, double) {
  using S = TestType;
  using Vec = claw::Vector<S, claw::Dynamic>;
  const Eigen::Index n = 9;
  const S h = S(0.002);
  // The simple configuration (fast path) and the general one (every option that reads h).
  claw::PidSettings<S, claw::Dynamic> simple;
  simple.resize(n);
  simple.kp.setConstant(S(40));
  simple.ki.setConstant(S(12));
  simple.kd.setConstant(S(3));
  simple.anti_windup = claw::AntiWindup::IntegralClamp;
  simple.integral_max.setConstant(S(0.05));
  simple.dt = h;
  claw::PidSettings<S, claw::Dynamic> general = simple;
  general.derivative = claw::DerivativeSource::ErrorDifference;
  general.derivative_filter.setConstant(S(80));
  general.slew_rate.setConstant(S(2));
  general.anti_windup = claw::AntiWindup::BackCalculation;
  general.tracking_time.setConstant(S(0.0015));  // h >= 2 Tt on some joints: Tt = h there
  general.tracking_time.head(4).setConstant(S(0.05));
  general.limits.kind = claw::EffortLimitKind::DcMotor;
  general.limits.stall_effort.setConstant(S(4));
  general.limits.peak_effort.setConstant(S(3));
  general.limits.no_load_speed.setConstant(S(8));
  general.wrap_period.head(2).setConstant(S(6.25));
  for (const auto* settings : {&simple, &general}) {
    for (const bool full : {false, true}) {
      claw::Pid<S, claw::Dynamic> fixed(n), per_call(n);
      REQUIRE(fixed.configure(*settings) == Status::Ok);
      REQUIRE(per_call.configure(*settings) == Status::Ok);
      std::mt19937 rng(11);
      std::uniform_real_distribution<S> uniform(S(-1), S(1));
      Vec target(n), q(n), v(n), tv(n), ff(n), out_fixed(n), out_per_call(n);
      for (int step = 0; step < 300; ++step) {
        for (Eigen::Index j = 0; j < n; ++j) {
          target(j) = uniform(rng);
          q(j) = uniform(rng);
          v(j) = S(4) * uniform(rng);
          tv(j) = uniform(rng);
          ff(j) = uniform(rng);
        }
        if (full) {
          REQUIRE(fixed.update(target, tv, ff, q, v, out_fixed) == Status::Ok);
          REQUIRE(per_call.update(target, tv, ff, q, v, h, out_per_call) == Status::Ok);
        } else {
          REQUIRE(fixed.update(target, q, v, out_fixed) == Status::Ok);
          REQUIRE(per_call.update(target, q, v, h, out_per_call) == Status::Ok);
        }
        REQUIRE(same_bits(out_fixed, out_per_call));
        REQUIRE(same_bits(fixed.integral_term(), per_call.integral_term()));
        REQUIRE(same_bits(fixed.slew_state(), per_call.slew_state()));
      }
    }
  }
}

TEST_CASE("a varying h: each term follows its closed form", "[pid][period][closed-form]") {
  const Eigen::VectorXd h = jittery_periods(200);
  const int steps = static_cast<int>(h.size());
  const V1 zero(0.0);
  V1 out;

  SECTION("integral: u_k = ki sum e_i h_i, over i < k (forward Euler) or i <= k (backward)") {
    for (const auto rule : {claw::IntegralRule::ForwardEuler, claw::IntegralRule::BackwardEuler}) {
      auto s = gains(0.0, 30.0, 0.0);
      s.integral_rule = rule;
      Pid1 pid;
      REQUIRE(pid.configure(s) == Status::Ok);
      double sum = 0.0;
      for (int k = 0; k < steps; ++k) {
        const double before = sum;
        sum += error_at(k) * h(k);
        REQUIRE(pid.update(V1(error_at(k)), zero, zero, h(k), out) == Status::Ok);
        const double expected = 30.0 * (rule == claw::IntegralRule::ForwardEuler ? before : sum);
        REQUIRE(std::fabs(out(0) - expected) <= 1e-12 * (1.0 + std::fabs(expected)));
      }
    }
  }

  SECTION("derivative on the error: u_k = kd (e_k - e_(k-1)) / h_k, 0 on the first step") {
    auto s = gains(0.0, 0.0, 0.25);
    s.derivative = claw::DerivativeSource::ErrorDifference;
    Pid1 pid;
    REQUIRE(pid.configure(s) == Status::Ok);
    for (int k = 0; k < steps; ++k) {
      REQUIRE(pid.update(V1(error_at(k)), zero, zero, h(k), out) == Status::Ok);
      const double expected = k == 0 ? 0.0 : 0.25 * (error_at(k) - error_at(k - 1)) / h(k);
      REQUIRE(std::fabs(out(0) - expected) <= 1e-12 * (1.0 + std::fabs(expected)));
    }
  }

  SECTION("derivative on the measurement: u_k = -kd (q_k - q_(k-1)) / h_k") {
    auto s = gains(0.0, 0.0, 0.5);
    s.derivative = claw::DerivativeSource::Measurement;
    Pid1 pid;
    REQUIRE(pid.configure(s) == Status::Ok);
    for (int k = 0; k < steps; ++k) {
      REQUIRE(pid.update(zero, V1(error_at(k)), zero, h(k), out) == Status::Ok);
      const double expected = k == 0 ? 0.0 : -0.5 * (error_at(k) - error_at(k - 1)) / h(k);
      REQUIRE(std::fabs(out(0) - expected) <= 1e-12 * (1.0 + std::fabs(expected)));
    }
  }

  SECTION("low-pass: d_f,k = (d_f,k-1 + h_k N d_k) / (1 + h_k N), per-step coefficient") {
    const double bandwidth = 150.0;
    auto s = gains(0.0, 0.0, 1.0);
    s.derivative_filter << bandwidth;
    Pid1 pid;
    REQUIRE(pid.configure(s) == Status::Ok);
    double filtered = 0.0;
    for (int k = 0; k < steps; ++k) {
      const double velocity = error_at(k);  // d = v* - v = -v
      filtered = (filtered + h(k) * bandwidth * -velocity) / (1.0 + h(k) * bandwidth);
      REQUIRE(pid.update(zero, zero, V1(velocity), h(k), out) == Status::Ok);
      REQUIRE(std::fabs(out(0) - filtered) <= 1e-12 * (1.0 + std::fabs(filtered)));
    }
  }

  SECTION("slew: the setpoint moves by S h_k per step until it meets the target") {
    const double rate = 3.0, target = 0.4;
    auto s = gains(1.0, 0.0, 0.0);
    s.slew_rate << rate;
    Pid1 pid;
    REQUIRE(pid.configure(s) == Status::Ok);
    double elapsed = 0.0;
    for (int k = 0; k < steps; ++k) {
      elapsed += h(k);
      REQUIRE(pid.update(V1(target), zero, zero, h(k), out) == Status::Ok);
      const double expected = std::fmin(target, rate * elapsed);  // from q = 0
      REQUIRE(std::fabs(out(0) - expected) <= 1e-12);
      REQUIRE(pid.slew_state()(0) == out(0));
    }
    REQUIRE(out(0) == target);
  }

  SECTION("back-calculation in saturation: I+ = I + ki e h + (h / Tt)(u_sat - u), Tt >= h / 2") {
    const double tracking = 1e-3;  // h_k >= 2 Tt on part of the steps: Tt = h_k there
    auto s = gains(10.0, 50.0, 0.0);
    s.anti_windup = claw::AntiWindup::BackCalculation;
    s.tracking_time << tracking;
    s.limits.kind = claw::EffortLimitKind::Bounds;
    s.limits.lower << -1.0;
    s.limits.upper << 1.0;
    Pid1 pid;
    REQUIRE(pid.configure(s) == Status::Ok);
    double integral = 0.0;
    for (int k = 0; k < steps; ++k) {
      const double e = 2.0 + error_at(k);
      const double advanced = integral + 50.0 * (e * h(k));
      const double u = 10.0 * e + advanced;  // backward Euler: u uses I+
      const double u_sat = std::fmin(1.0, std::fmax(-1.0, u));
      const double tt = h(k) < tracking + tracking ? tracking : h(k);
      integral = advanced + h(k) * ((u_sat - u) / tt);
      REQUIRE(pid.update(V1(e), zero, zero, h(k), out) == Status::Ok);
      REQUIRE(out(0) == u_sat);
      REQUIRE(std::fabs(pid.integral_term()(0) - integral) <= 1e-12 * (1.0 + std::fabs(integral)));
    }
  }
}

TEST_CASE("a bad or empty period: check_time_step's statuses, nothing touched",
          "[pid][period][bad-input]") {
  auto s = gains(5.0, 20.0, 0.3);
  s.derivative = claw::DerivativeSource::ErrorDifference;
  Pid1 pid, twin;
  REQUIRE(pid.configure(s) == Status::Ok);
  REQUIRE(twin.configure(s) == Status::Ok);
  V1 out = V1::Zero(), twin_out = V1::Zero();
  const V1 zero(0.0);
  REQUIRE(pid.update(V1(0.3), zero, zero, 1e-3, out) == Status::Ok);
  REQUIRE(twin.update(V1(0.3), zero, zero, 1e-3, twin_out) == Status::Ok);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const double last = out(0);
  REQUIRE(pid.update(V1(0.1), zero, zero, nan, out) == Status::NonFiniteInput);
  REQUIRE(pid.update(V1(0.1), zero, zero, inf, out) == Status::NonFiniteInput);
  REQUIRE(pid.update(V1(0.1), zero, zero, -1e-3, out) == Status::NegativeTimeStep);
  REQUIRE(pid.update(V1(0.1), zero, zero, zero, zero, -1e-3, out) == Status::NegativeTimeStep);
  // No time passes: Ok, and neither out nor the state moves.
  REQUIRE(pid.update(V1(0.1), zero, zero, 0.0, out) == Status::Ok);
  REQUIRE(pid.update(V1(0.1), zero, zero, zero, zero, 1e-12, out) == Status::Ok);
  REQUIRE(out(0) == last);
  // A step of no time still checks sizes and values.
  const Eigen::VectorXd two = Eigen::VectorXd::Zero(2);
  REQUIRE(pid.update(two, zero, zero, 0.0, out) == Status::SizeMismatch);
  REQUIRE(pid.update(V1(nan), zero, zero, 0.0, out) == Status::NonFiniteInput);
  REQUIRE(out(0) == last);
  // The next real step equals the twin's, which never saw the calls above.
  REQUIRE(pid.update(V1(0.2), zero, zero, 2e-3, out) == Status::Ok);
  REQUIRE(twin.update(V1(0.2), zero, zero, 2e-3, twin_out) == Status::Ok);
  REQUIRE(same_bits(out, twin_out));
  REQUIRE(same_bits(pid.integral_term(), twin.integral_term()));
  // A Pid without joints refuses as every call does.
  claw::Pid<double, claw::Dynamic> empty;
  Eigen::VectorXd none(0);
  REQUIRE(empty.update(none, none, none, 1e-3, none) == Status::SizeMismatch);
}
