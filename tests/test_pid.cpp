// tests/test_pid.cpp: laws/pid.hpp and its devices against closed forms (steady state, slew ramp,
// clamps, back-calculation decay, conditional freeze, low-pass step, wrap) and the anchors'
// published laws.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include <Eigen/LU>

#include "claw/core/remainder.hpp"
#include "claw/laws/activation.hpp"
#include "claw/laws/pd.hpp"
#include "claw/laws/pid_presets.hpp"
#include "support/alloc_counter.hpp"
#include "support/bits.hpp"
#include "support/infinity.hpp"

using claw::Status;
using claw_test::same_bits;

namespace {
using V1 = Eigen::Matrix<double, 1, 1>;
using Pid1 = claw::Pid<double, 1>;

claw::PidSettings<double, 1> gains(double kp, double ki, double kd, double dt) {
  claw::PidSettings<double, 1> s;
  s.kp << kp;
  s.ki << ki;
  s.kd << kd;
  s.dt = dt;
  return s;
}

// Mass m under gravity g, force u held over h, integrated exactly: returns the final position
// error q* - q after `seconds` of control toward q* = target.
double steady_state_error(Pid1& pid, double m, double g, double target, double h, double seconds) {
  double q = 0.0, v = 0.0;
  V1 u(0.0);
  const int steps = static_cast<int>(seconds / h);
  for (int k = 0; k < steps; ++k) {
    REQUIRE(pid.update(V1(target), V1(q), V1(v), u) == Status::Ok);
    const double a = (u(0) - m * g) / m;
    q += v * h + 0.5 * a * h * h;
    v += a * h;
  }
  return target - q;
}
}  // namespace

TEST_CASE("PD on a mass under gravity settles at m g / kp; PID removes it", "[pid][closed-form]") {
  const double m = 2.0, g = 9.81, kp = 400.0, kd = 60.0, h = 1e-3;
  Pid1 pd;
  REQUIRE(pd.configure(gains(kp, 0.0, kd, h)) == Status::Ok);
  const double pd_error = steady_state_error(pd, m, g, 0.3, h, 10.0);
  REQUIRE(std::fabs(pd_error - m * g / kp) <= 1e-9);
  Pid1 pid;
  REQUIRE(pid.configure(gains(kp, 800.0, kd, h)) == Status::Ok);
  const double pid_error = steady_state_error(pid, m, g, 0.3, h, 20.0);
  REQUIRE(std::fabs(pid_error) <= 1e-9);
  // The integral term holds the weight.
  REQUIRE(std::fabs(pid.integral_term()(0) - m * g) <= 1e-6);
}

TEST_CASE("slew limit turns a step into a ramp of slope exactly S", "[pid][slew][closed-form]") {
  const double h = 1.0 / 128, rate = 2.0;  // S h = 1/64: every ramp value is exact
  for (auto start :
       {claw::SlewStart::FromMeasurement, claw::SlewStart::FromZero, claw::SlewStart::PassFirst}) {
    auto s = gains(1.0, 0.0, 0.0, h);
    s.slew_rate << rate;
    s.slew_start = start;
    Pid1 pid;
    REQUIRE(pid.configure(s) == Status::Ok);
    const double measured = 0.25, target = 1.0;
    V1 u(0.0);
    double previous = start == claw::SlewStart::FromZero ? 0.0 : measured;
    for (int k = 0; k < 100; ++k) {
      REQUIRE(pid.update(V1(target), V1(measured), V1(0.0), u) == Status::Ok);
      const double limited = pid.slew_state()(0);
      INFO("start " << int(start) << " step " << k);
      if (k == 0 && start == claw::SlewStart::PassFirst) {
        REQUIRE(limited == target);  // MuJoCo plugin: the first step is not limited
        break;
      }
      REQUIRE(limited == std::min(previous + rate * h, target));
      REQUIRE(u(0) == limited - measured);  // kp = 1: the law sees the limited setpoint
      previous = limited;
    }
  }
  // The standalone limiter: same ramp.
  claw::SlewLimiter<double, 2> limiter;
  REQUIRE(limiter.configure(Eigen::Vector2d(rate, 4 * rate), claw::SlewStart::FromMeasurement) ==
          Status::Ok);
  Eigen::Vector2d out;
  REQUIRE(limiter.update(Eigen::Vector2d(1.0, -1.0), Eigen::Vector2d(0.0, 0.0), h, out) ==
          Status::Ok);
  REQUIRE(out(0) == rate * h);
  REQUIRE(out(1) == -4 * rate * h);
  REQUIRE(limiter.configure(Eigen::Vector2d(0.0, 1.0), claw::SlewStart::FromZero) ==
          Status::InvalidParameter);
}

TEST_CASE("input ranges clip q*, v* and ff before the law, each range alone and all three",
          "[pid][closed-form]") {
  // u_j = kp (clip(q*_j) - q_j) + kd (clip(v*_j) - v_j) + clip(ff_j) (no integral): each input is
  // clipped to its range first (MuJoCo's ctrlrange), whichever range is set.
  using Vec3 = Eigen::Vector3d;
  const double kp = 10.0, kd = 2.0;
  const Vec3 target(3.0, -3.0, 0.25), target_velocity(1.0, -1.0, 0.125),
      feedforward(5.0, -5.0, 1.0);
  const Vec3 q(0.5, 0.5, 0.5), v(0.0, 0.25, 0.0);
  for (int ranges = 1; ranges <= 4; ++ranges) {
    const bool target_range = ranges == 1 || ranges == 4;
    const bool velocity_range = ranges == 2 || ranges == 4;
    const bool feedforward_range = ranges == 3 || ranges == 4;
    INFO("target range " << target_range << ", velocity range " << velocity_range
                         << ", feedforward range " << feedforward_range);
    claw::PidSettings<double, 3> s;
    s.kp.setConstant(kp);
    s.ki.setZero();
    s.kd.setConstant(kd);
    if (target_range) {
      s.target_min.setConstant(-1.0);
      s.target_max.setConstant(1.0);
    }
    if (velocity_range) {
      s.target_velocity_min.setConstant(-0.5);
      s.target_velocity_max.setConstant(0.5);
    }
    if (feedforward_range) {
      s.feedforward_min.setConstant(-2.0);
      s.feedforward_max.setConstant(2.0);
    }
    claw::Pid<double, 3> pid;
    REQUIRE(pid.configure(s) == Status::Ok);
    Vec3 out;
    REQUIRE(pid.update(target, target_velocity, feedforward, q, v, out) == Status::Ok);
    for (int j = 0; j < 3; ++j) {
      const double r = target_range ? std::clamp(target(j), -1.0, 1.0) : target(j);
      const double vr =
          velocity_range ? std::clamp(target_velocity(j), -0.5, 0.5) : target_velocity(j);
      const double ff = feedforward_range ? std::clamp(feedforward(j), -2.0, 2.0) : feedforward(j);
      CHECK(out(j) == kp * (r - q(j)) + kd * (vr - v(j)) + ff);
    }
  }
}

TEST_CASE("integral clamp and I-term clamp hold the integral exactly at their limits",
          "[pid][anti-windup][closed-form]") {
  const double h = 0.01, ki = 3.0;
  auto clamp = gains(0.0, ki, 0.0, h);
  clamp.anti_windup = claw::AntiWindup::IntegralClamp;
  clamp.integral_max << 0.05;
  auto iterm = gains(0.0, ki, 0.0, h);
  iterm.anti_windup = claw::AntiWindup::ITermClamp;
  iterm.iterm_min << -0.1;
  iterm.iterm_max << 0.2;
  Pid1 a, b;
  REQUIRE(a.configure(clamp) == Status::Ok);
  REQUIRE(b.configure(iterm) == Status::Ok);
  V1 u(0.0);
  for (int k = 0; k < 200; ++k) {
    const double target = k < 100 ? 1.0 : -1.0;
    REQUIRE(a.update(V1(target), V1(0.0), V1(0.0), u) == Status::Ok);
    REQUIRE(std::fabs(a.integral_term()(0)) <= ki * 0.05);
    REQUIRE(u(0) == a.integral_term()(0));
    REQUIRE(b.update(V1(target), V1(0.0), V1(0.0), u) == Status::Ok);
    REQUIRE(b.integral_term()(0) <= 0.2);
    REQUIRE(b.integral_term()(0) >= -0.1);
  }
  // Both ended pinned at their lower limit after 100 steps of -1 error.
  REQUIRE(a.integral_term()(0) == -ki * 0.05);
  REQUIRE(b.integral_term()(0) == -0.1);
}

TEST_CASE("back-calculation: in saturation the integral decays with time constant Tt",
          "[pid][anti-windup][closed-form]") {
  const double h = 0.01, ki = 2.0, limit = 1.0, tt = 0.25, e = 0.5;
  for (auto rule : {claw::IntegralRule::ForwardEuler, claw::IntegralRule::BackwardEuler}) {
    auto s = gains(0.0, ki, 0.0, h);
    s.anti_windup = claw::AntiWindup::BackCalculation;
    s.tracking_time << tt;
    s.integral_rule = rule;
    s.limits.kind = claw::EffortLimitKind::Bounds;
    s.limits.lower << -limit;
    s.limits.upper << limit;
    Pid1 pid;
    REQUIRE(pid.configure(s) == Status::Ok);
    const double i0 = 5.0;
    REQUIRE(pid.set_integral_term(V1(i0)) == Status::Ok);
    // Forward: I+ = I + h (ki e + (L - I)/Tt) -> fixed point I* = L + Tt ki e, ratio 1 - h/Tt.
    // Backward: u uses I + h ki e, so I* = L + Tt ki e - h ki e, same ratio.
    const double fixed_point =
        limit + tt * ki * e - (rule == claw::IntegralRule::BackwardEuler ? h * ki * e : 0.0);
    V1 u(0.0);
    for (int k = 1; k <= 300; ++k) {
      REQUIRE(pid.update(V1(e), V1(0.0), V1(0.0), u) == Status::Ok);
      REQUIRE(u(0) == limit);
      const double expected = fixed_point + (i0 - fixed_point) * std::pow(1.0 - h / tt, k);
      INFO("rule " << int(rule) << " step " << k);
      REQUIRE(std::fabs(pid.integral_term()(0) - expected) <= 1e-12 * std::fabs(expected));
    }
  }
  // The default tracking time follows control_toolbox's rule.
  REQUIRE(claw::default_tracking_time(4.0, 2.0, 0.5) == std::sqrt(0.25));
  REQUIRE(claw::default_tracking_time(4.0, 2.0, 0.0) == 2.0);
}

TEST_CASE("conditional integration freezes exactly when saturated and pushing outward",
          "[pid][anti-windup][closed-form]") {
  const double h = 0.01, ki = 10.0, kp = 100.0;
  for (auto rule : {claw::IntegralRule::ForwardEuler, claw::IntegralRule::BackwardEuler}) {
    auto s = gains(kp, ki, 0.0, h);
    s.anti_windup = claw::AntiWindup::Conditional;
    s.integral_rule = rule;
    s.limits.kind = claw::EffortLimitKind::Bounds;
    s.limits.lower << -5.0;
    s.limits.upper << 5.0;
    Pid1 pid;
    REQUIRE(pid.configure(s) == Status::Ok);
    V1 u(0.0);
    double integral = 0.0;
    // e = 1: kp e = 100 saturates high and e pushes further: frozen.
    for (int k = 0; k < 10; ++k) {
      REQUIRE(pid.update(V1(1.0), V1(0.0), V1(0.0), u) == Status::Ok);
      REQUIRE(u(0) == 5.0);
      REQUIRE(pid.integral_term()(0) == integral);
    }
    // e = -1 while still high? kp e = -100 saturates low, pushes further low: frozen too.
    REQUIRE(pid.update(V1(-1.0), V1(0.0), V1(0.0), u) == Status::Ok);
    REQUIRE(u(0) == -5.0);
    REQUIRE(pid.integral_term()(0) == integral);
    // Small error, unsaturated: integrates.
    REQUIRE(pid.update(V1(0.01), V1(0.0), V1(0.0), u) == Status::Ok);
    integral += ki * (0.01 * h);
    REQUIRE(pid.integral_term()(0) == integral);
    REQUIRE(std::fabs(u(0)) < 5.0);
  }
}

TEST_CASE("backward-Euler conditional integration outputs kp e + the integral it keeps",
          "[pid][anti-windup][closed-form]") {
  // Backward Euler outputs u = clip(kp e + I+). When only this step's increment ki h e pushes u
  // past the limit (outward: e > 0), the increment is dropped, I+ = I, and the output is
  // kp e + I, inside the limit: 100 * 0.046875 + 0.2 = 4.8875 < 5 < 4.8875 + ki h e = 5.35625.
  const double h = 0.01, ki = 1000.0, kp = 100.0, e = 0.046875, integral = 0.2;
  auto s = gains(kp, ki, 0.0, h);
  s.anti_windup = claw::AntiWindup::Conditional;
  s.integral_rule = claw::IntegralRule::BackwardEuler;
  s.limits.kind = claw::EffortLimitKind::Bounds;
  s.limits.lower << -5.0;
  s.limits.upper << 5.0;
  Pid1 pid;
  REQUIRE(pid.configure(s) == Status::Ok);
  REQUIRE(pid.set_integral_term(0, integral) == Status::Ok);
  REQUIRE(kp * e + integral + ki * (e * h) > 5.0);
  V1 u(0.0);
  REQUIRE(pid.update(V1(e), V1(0.0), V1(0.0), u) == Status::Ok);
  CHECK(pid.integral_term()(0) == integral);
  CHECK(u(0) == kp * e + integral);
  CHECK(u(0) < 5.0);
  // Mirrored below: e < 0, -4.8875 > -5 > -5.35625; again u = kp e + I with I unchanged.
  REQUIRE(pid.set_integral_term(0, -integral) == Status::Ok);
  REQUIRE(pid.update(V1(-e), V1(0.0), V1(0.0), u) == Status::Ok);
  CHECK(pid.integral_term()(0) == -integral);
  CHECK(u(0) == -(kp * e + integral));
}

TEST_CASE("StopAtLimit integrates only errors that shrink |z| once |z| >= integral_max",
          "[pid][anti-windup]") {
  const double h = 0.1, ki = 1.0;
  auto s = gains(0.0, ki, 0.0, h);
  s.anti_windup = claw::AntiWindup::StopAtLimit;
  s.integral_max << 0.25;
  Pid1 pid;
  REQUIRE(pid.configure(s) == Status::Ok);
  V1 u(0.0);
  // z: 0 -> 0.1 -> 0.2 -> 0.3 (overshoots by |e| h) -> stays 0.3 -> 0.25 with e = -0.5.
  const double errors[] = {1.0, 1.0, 1.0, 1.0, 2.0, -0.5};
  const double expected[] = {
      0.1, 0.2, 0.30000000000000004, 0.30000000000000004, 0.30000000000000004, 0.25000000000000006};
  for (int k = 0; k < 6; ++k) {
    REQUIRE(pid.update(V1(errors[k]), V1(0.0), V1(0.0), u) == Status::Ok);
    REQUIRE(std::fabs(pid.error_integral(0) - expected[k]) <= 1e-15);
  }
}

TEST_CASE("low-pass derivative: step response is the discrete first-order formula",
          "[pid][derivative][closed-form]") {
  const double h = 0.002, n_filter = 50.0, kd = 3.0;
  auto s = gains(0.0, 0.0, kd, h);
  s.derivative_filter << n_filter;
  Pid1 pid;
  REQUIRE(pid.configure(s) == Status::Ok);
  V1 u(0.0);
  const double a = 1.0 / (1.0 + h * n_filter);
  for (int k = 1; k <= 200; ++k) {
    // v* = 0, v = -1: a unit step of the velocity error d = 1.
    REQUIRE(pid.update(V1(0.0), V1(0.0), V1(-1.0), u) == Status::Ok);
    const double expected = kd * (1.0 - std::pow(a, k));
    REQUIRE(std::fabs(u(0) - expected) <= 1e-12 * kd);
  }
}

TEST_CASE("derivative sources: error difference skips the first step, measurement has no kick",
          "[pid][derivative]") {
  const double h = 0.01;
  auto diff = gains(0.0, 0.0, 1.0, h);
  diff.derivative = claw::DerivativeSource::ErrorDifference;
  auto meas = diff;
  meas.derivative = claw::DerivativeSource::Measurement;
  auto kick = diff;
  kick.derivative_from_zero_error = true;
  Pid1 a, b, c;
  REQUIRE(a.configure(diff) == Status::Ok);
  REQUIRE(b.configure(meas) == Status::Ok);
  REQUIRE(c.configure(kick) == Status::Ok);
  V1 ua, ub, uc;
  REQUIRE(a.update(V1(1.0), V1(0.0), V1(0.0), ua) == Status::Ok);
  REQUIRE(b.update(V1(1.0), V1(0.0), V1(0.0), ub) == Status::Ok);
  REQUIRE(c.update(V1(1.0), V1(0.0), V1(0.0), uc) == Status::Ok);
  REQUIRE(ua(0) == 0.0);
  REQUIRE(ub(0) == 0.0);
  REQUIRE(uc(0) == 1.0 / h);  // control_toolbox after reset: e_prev = 0
  // Setpoint jump 1 -> 2 with the joint moving 0 -> 0.1.
  REQUIRE(a.update(V1(2.0), V1(0.1), V1(0.0), ua) == Status::Ok);
  REQUIRE(b.update(V1(2.0), V1(0.1), V1(0.0), ub) == Status::Ok);
  REQUIRE(std::fabs(ua(0) - (1.9 - 1.0) / h) <= 1e-12);
  REQUIRE(std::fabs(ub(0) - (-(0.1 - 0.0) / h)) <= 1e-12);  // no kick from the setpoint jump
}

TEST_CASE("continuous joints: the error is the shortest angle", "[pid][closed-form]") {
  auto s = gains(1.0, 0.0, 0.0, 0.01);
  s.wrap_period << 2 * M_PI;
  Pid1 pid;
  REQUIRE(pid.configure(s) == Status::Ok);
  V1 u(0.0);
  REQUIRE(pid.update(V1(M_PI - 0.1), V1(-M_PI + 0.1), V1(0.0), u) == Status::Ok);
  REQUIRE(std::fabs(u(0) - (-0.2)) <= 1e-12);  // not 2 pi - 0.2
  REQUIRE(pid.update(V1(0.3 + 4 * M_PI), V1(0.1), V1(0.0), u) == Status::Ok);
  REQUIRE(std::fabs(u(0) - 0.2) <= 1e-12);
}

TEMPLATE_TEST_CASE("wrap's remainder is std::remainder bit for bit", "[pid][closed-form]", float,
                   double) {
  // detail::remainder replaces libm's remainder in the wrapped error: it must be the IEEE
  // remainder exactly, ties to even included, for every magnitude of x and of the period.
  using T = TestType;
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> unit(-1.0, 1.0), exponent(-30.0, 30.0);
  const T periods[] = {static_cast<T>(2 * M_PI),
                       T(1),
                       T(360),
                       T(0.1),
                       T(3),
                       std::numeric_limits<T>::denorm_min(),
                       std::numeric_limits<T>::min(),
                       std::numeric_limits<T>::max() / T(4)};
  int mismatches = 0;
  for (const T p : periods) {
    for (int i = 0; i < 20000; ++i) {
      T x = static_cast<T>(unit(rng) * std::pow(2.0, exponent(rng)));
      const T half_multiple = static_cast<T>(std::round(unit(rng) * 20.0)) * p / T(2);
      if (i % 3 == 1) x = half_multiple;                        // ties and multiples
      if (i % 3 == 2) x = std::nextafter(half_multiple, T(0));  // one ulp inside a tie
      if (!std::isfinite(x)) continue;
      mismatches +=
          claw::detail::same_bits(claw::detail::remainder(x, p), std::remainder(x, p)) ? 0 : 1;
    }
    for (const T x : {std::numeric_limits<T>::max(), -std::numeric_limits<T>::max(), T(0), -T(0),
                      std::numeric_limits<T>::denorm_min(), p, -p, p / T(2), -p / T(2), T(1.5) * p,
                      T(2.5) * p, T(-2.5) * p})
      mismatches +=
          claw::detail::same_bits(claw::detail::remainder(x, p), std::remainder(x, p)) ? 0 : 1;
  }
  CHECK(mismatches == 0);
  // Non-finite x: NaN, as std::remainder (and in finitely many steps).
  for (const T x : {std::numeric_limits<T>::infinity(), -std::numeric_limits<T>::infinity(),
                    std::numeric_limits<T>::quiet_NaN()}) {
    CHECK(std::isnan(claw::detail::remainder(x, T(1))));
    CHECK(std::isnan(std::remainder(x, T(1))));
  }
}

TEST_CASE("DC-motor clamp equals the torque-speed formula at sampled speeds", "[pid][limits]") {
  claw::EffortLimits<double, 1> limits;
  limits.kind = claw::EffortLimitKind::DcMotor;
  const double tsat = 10.0, tmax = 6.0, vlim = 20.0;
  limits.stall_effort << tsat;
  limits.peak_effort << tmax;
  limits.no_load_speed << vlim;
  REQUIRE(claw::validate_effort_limits(limits, 1) == Status::Ok);
  for (double v = -60.0; v <= 60.0; v += 0.37) {
    // The DC-motor envelope's formula; past the edge speed (|v| >= 32) its exact value is -+tmax
    // for both ends (evaluated in double, tsat (1 - edge / vlim) may miss -tmax by an ulp; claw
    // gives it exactly).
    const double edge = vlim * (1 + tmax / tsat);
    const double vh = std::min(std::max(v, -edge), edge);
    double upper = std::min(tsat * (1 - vh / vlim), tmax);
    double lower = std::max(tsat * (-1 - vh / vlim), -tmax);
    if (v >= edge) upper = lower = -tmax;
    if (v <= -edge) upper = lower = tmax;
    V1 high(1e6), low(-1e6), inside(0.0);
    REQUIRE(claw::clamp_effort(limits, high, V1(v)) == Status::Ok);
    REQUIRE(claw::clamp_effort(limits, low, V1(v)) == Status::Ok);
    INFO("v " << v);
    REQUIRE(high(0) == upper);
    REQUIRE(low(0) == lower);
    if (lower <= 0.0 && 0.0 <= upper) {
      REQUIRE(claw::clamp_effort(limits, inside, V1(v)) == Status::Ok);
      REQUIRE(inside(0) == 0.0);
    }
  }
  limits.stall_effort << -1.0;
  REQUIRE(claw::validate_effort_limits(limits, 1) == Status::InvalidParameter);
}

TEST_CASE(
    "stable PD equals the implicit-Euler closed form and stays bounded where explicit PD "
    "diverges",
    "[pid][stable_pd][closed-form]") {
  const double h = 0.01, m = 1.0;
  for (double kp_h2_over_m : {0.5, 100.0}) {
    const double kp = kp_h2_over_m * m / (h * h), kd = 0.0;
    claw::StablePd<double, 1> stable;
    claw::StablePd<double, 1>::Settings settings;
    settings.kp << kp;
    settings.kd << kd;
    settings.dt = h;
    REQUIRE(stable.configure(settings) == Status::Ok);
    // Implicit Euler of q'' = kp (0 - q) - kd v: [q; v]+ = M [q; v] with
    // v+ = (v - h kp q) / (1 + h kd + h^2 kp), q+ = q + h v+.
    double q = 1.0, v = 0.0, q_ref = 1.0, v_ref = 0.0;
    V1 tau(0.0);
    for (int k = 0; k < 500; ++k) {
      REQUIRE(stable.update(V1(0.0), V1(0.0), V1(0.0), V1(q), V1(v), V1(1.0 / m), tau) ==
              Status::Ok);
      v += h * tau(0) / m;
      q += h * v;
      v_ref = (v_ref - h * kp * q_ref) / (1.0 + h * kd + h * h * kp);
      q_ref = q_ref + h * v_ref;
      REQUIRE(std::fabs(q - q_ref) <= 1e-12 * std::max(1.0, std::fabs(q_ref)));
      REQUIRE(std::fabs(q) <= 1.0 + 1e-12);
    }
    // Explicit PD with the same gain on the same plant.
    Pid1 explicit_pd;
    REQUIRE(explicit_pd.configure(gains(kp, 0.0, kd, h)) == Status::Ok);
    double qe = 1.0, ve = 0.0;
    V1 u(0.0);
    for (int k = 0; k < 500 && std::fabs(qe) <= 1e10; ++k) {
      REQUIRE(explicit_pd.update(V1(0.0), V1(qe), V1(ve), u) == Status::Ok);
      ve += h * u(0) / m;
      qe += h * ve;
    }
    if (kp_h2_over_m > 4.0)
      REQUIRE(std::fabs(qe) > 1e10);  // semi-implicit Euler needs kp h^2 < 4
    else
      REQUIRE(std::fabs(qe) <= 1.0 + 1e-12);
  }
}

TEST_CASE("stable PD with a full inverse-mass block solves the coupled system",
          "[pid][stable_pd]") {
  const double h = 0.002;
  claw::StablePd<double, 3> stable;
  claw::StablePd<double, 3>::Settings settings;
  settings.kp << 300.0, 200.0, 100.0;
  settings.kd << 20.0, 10.0, 5.0;
  settings.constant_effort << 0.5, -0.25, 0.0;
  settings.dt = h;
  REQUIRE(stable.configure(settings) == Status::Ok);
  Eigen::Matrix3d mass;
  mass << 2.0, 0.3, 0.1, 0.3, 1.5, 0.2, 0.1, 0.2, 0.8;
  const Eigen::Matrix3d inverse_mass = mass.inverse();
  const Eigen::Vector3d target(0.3, -0.2, 0.1), target_v(0.1, 0.0, -0.1), ff(1.0, 0.0, -1.0);
  const Eigen::Vector3d q(0.0, 0.1, 0.2), v(0.5, -0.5, 0.25);
  Eigen::Vector3d tau;
  REQUIRE(stable.update_full(target, target_v, ff, q, v, inverse_mass, tau) == Status::Ok);
  // tau is the PD effort at the semi-implicit next state: v+ = v + h A tau, q+ = q + h v.
  const Eigen::Vector3d v_next = v + h * inverse_mass * tau;
  const Eigen::Vector3d kp = settings.kp, kd = settings.kd;
  const Eigen::Vector3d expected =
      settings.constant_effort + ff +
      (kp.array() * (target - q - h * v_next).array() + kd.array() * (target_v - v_next).array())
          .matrix();
  REQUIRE((tau - expected).cwiseAbs().maxCoeff() <= 1e-10);
  // Diagonal inverse mass: per joint, the explicit law divided by 1 + h (h kp + kd) a.
  const Eigen::Vector3d a(0.5, 2.0, 1.0);
  REQUIRE(stable.update(target, target_v, ff, q, v, a, tau) == Status::Ok);
  for (int j = 0; j < 3; ++j) {
    const double rhs = settings.constant_effort(j) + ff(j) + kp(j) * (target(j) - q(j) - h * v(j)) +
                       kd(j) * (target_v(j) - v(j));
    REQUIRE(std::fabs(tau(j) - rhs / (1 + h * (h * kp(j) + kd(j)) * a(j))) <= 1e-12);
  }
}

TEST_CASE("stable PD refuses a negative inverse mass; a zero one gives the explicit law",
          "[pid][stable_pd][bad-input]") {
  // tau_j = (c + ff + kp (q* - q - h v) + kd (v* - v)) / (1 + h (h kp + kd) a_j), a_j = 1 / m_j:
  // a mass is positive, so a_j < 0 is no plant (it would even make the divisor vanish at
  // a_j = -1 / (h (h kp + kd))); a_j = 0 (infinite mass) divides by 1.
  const double h = 0.01;
  claw::StablePd<double, 3> stable;
  claw::StablePd<double, 3>::Settings settings;
  settings.kp << 100.0, 200.0, 300.0;
  settings.kd << 10.0, 5.0, 1.0;
  settings.dt = h;
  REQUIRE(stable.configure(settings) == Status::Ok);
  const Eigen::Vector3d target(0.5, -0.5, 0.25), zero = Eigen::Vector3d::Zero();
  const Eigen::Vector3d q(0.1, 0.2, 0.3), v(1.0, -1.0, 0.5);
  const Eigen::Vector3d held(7.0, 8.0, 9.0);
  Eigen::Vector3d tau = held;
  REQUIRE(stable.update(target, zero, zero, q, v, Eigen::Vector3d(0.5, -0.25, 1.0), tau) ==
          Status::InvalidParameter);
  CHECK(tau == held);
  // The divisor's zero, a = -1 / (h (h kp + kd)) = -1 / (0.01 * 11) for joint 0, is refused too.
  REQUIRE(stable.update(target, zero, zero, q, v, Eigen::Vector3d(-1.0 / (h * 11.0), 1.0, 1.0),
                        tau) == Status::InvalidParameter);
  CHECK(tau == held);
  REQUIRE(stable.update(target, zero, zero, q, v, Eigen::Vector3d(0.0, -0.0, 0.0), tau) ==
          Status::Ok);
  for (int j = 0; j < 3; ++j)
    CHECK(tau(j) == settings.kp(j) * (target(j) - q(j) - h * v(j)) + settings.kd(j) * (0.0 - v(j)));
}

TEST_CASE("Newton DrivePID presets follow the published law", "[pid][presets]") {
  claw::presets::NewtonDrivePid<double> p;
  p.kp = 2.0;
  p.ki = 3.0;
  p.kd = 0.5;
  p.integral_max = 0.05;
  p.effort_limit = 1.5;
  p.dt = 0.1;
  Pid1 pid;
  REQUIRE(pid.configure(claw::presets::newton_drive_pid<double, 1>(1, p)) == Status::Ok);
  const double targets[] = {0.5, 0.5, 0.2, -0.3, 0.0};
  const double qs[] = {0.0, 0.1, 0.15, 0.1, -0.05};
  const double vs[] = {0.0, 0.4, 0.2, -0.1, -0.3};
  const double vts[] = {0.0, 0.1, 0.0, -0.2, 0.0};
  double z = 0.0;
  for (int k = 0; k < 5; ++k) {
    V1 u(0.0);
    REQUIRE(pid.update(V1(targets[k]), V1(vts[k]), V1(0.0), V1(qs[k]), V1(vs[k]), u) == Status::Ok);
    const double e = targets[k] - qs[k];
    z = std::min(std::max(z + e * p.dt, -p.integral_max), p.integral_max);
    const double expected =
        std::min(std::max(p.kp * e + p.ki * z + p.kd * (vts[k] - vs[k]), -1.5), 1.5);
    INFO("step " << k);
    REQUIRE(std::fabs(u(0) - expected) <= 1e-12);
  }
  // Implicit: StablePd on kp, kd plus the clamped integral as feedforward.
  const auto drive = claw::presets::newton_drive_pid_implicit<double, 1>(1, p);
  claw::StablePd<double, 1> stable;
  Pid1 integral;
  REQUIRE(stable.configure(drive.stable_pd) == Status::Ok);
  REQUIRE(integral.configure(drive.integral) == Status::Ok);
  z = 0.0;
  for (int k = 0; k < 5; ++k) {
    V1 i_term(0.0), tau(0.0);
    REQUIRE(integral.update(V1(targets[k]), V1(qs[k]), V1(vs[k]), i_term) == Status::Ok);
    REQUIRE(stable.update(V1(targets[k]), V1(vts[k]), i_term, V1(qs[k]), V1(vs[k]), V1(1.0), tau) ==
            Status::Ok);
    const double e = targets[k] - qs[k];
    z = std::min(std::max(z + e * p.dt, -p.integral_max), p.integral_max);
    const double rhs = p.ki * z + p.kp * (e - p.dt * vs[k]) + p.kd * (vts[k] - vs[k]);
    const double expected = std::min(std::max(rhs / (1 + p.dt * (p.dt * p.kp + p.kd)), -1.5), 1.5);
    REQUIRE(std::fabs(tau(0) - expected) <= 1e-12);
  }
}

TEST_CASE("Drake, control_toolbox and Arduino presets follow their published laws",
          "[pid][presets]") {
  const double errors[] = {1.0, 0.8, 0.5, -0.2, -0.4, 0.1, 0.0, 0.3};
  const double measured[] = {0.0, 0.2, 0.45, 0.7, 0.75, 0.6, 0.55, 0.5};
  SECTION("Drake PidController: u uses the integral state before its update") {
    Pid1 pid;
    REQUIRE(pid.configure(claw::presets::drake<double, 1>({4.0, 2.0, 0.5, 0.05})) == Status::Ok);
    double z = 0.0;
    for (int k = 0; k < 8; ++k) {
      V1 u(0.0);
      const double v = 0.3 * k;
      REQUIRE(pid.update(V1(errors[k] + measured[k]), V1(0.1), V1(0.0), V1(measured[k]), V1(v),
                         u) == Status::Ok);
      REQUIRE(std::fabs(u(0) - (4.0 * errors[k] + 2.0 * z + 0.5 * (0.1 - v))) <= 1e-12);
      z += errors[k] * 0.05;
    }
  }
  SECTION("control_toolbox, current and <= 5.5, every strategy") {
    using Strategy = claw::presets::ControlToolboxStrategy;
    struct Variant {
      bool legacy_preset;
      Strategy strategy;
      bool legacy_antiwindup;
    };
    const Variant variants[] = {{false, Strategy::None, false},
                                {false, Strategy::BackCalculation, false},
                                {false, Strategy::ConditionalIntegration, false},
                                {false, Strategy::Legacy, true},
                                {false, Strategy::Legacy, false},
                                {true, Strategy::BackCalculation, false},
                                {true, Strategy::ConditionalIntegration, false},
                                {true, Strategy::Legacy, true},
                                {true, Strategy::Legacy, false}};
    for (const Variant& variant : variants) {
      claw::presets::ControlToolboxPid<double> p;
      p.p = 3.0;
      p.i = 5.0;
      p.d = 0.02;
      p.u_min = -2.5;
      p.u_max = 2.5;
      p.i_min = -0.4;
      p.i_max = 0.4;
      p.strategy = variant.strategy;
      p.legacy_antiwindup = variant.legacy_antiwindup;
      p.dt = 0.1;
      Pid1 pid;
      REQUIRE(pid.configure(variant.legacy_preset
                                ? claw::presets::control_toolbox_legacy<double, 1>(p)
                                : claw::presets::control_toolbox<double, 1>(p)) == Status::Ok);
      // The I-term bounds: every strategy of the current version, only Legacy before.
      const bool bounded = !variant.legacy_preset || variant.strategy == Strategy::Legacy;
      const double lo = bounded ? p.i_min : -kInf, hi = bounded ? p.i_max : kInf;
      double i_term = 0.0, e_last = 0.0;
      const double tt = std::sqrt(p.d / p.i);
      for (int k = 0; k < 8; ++k) {
        V1 u(0.0);
        REQUIRE(pid.update(V1(errors[k]), V1(0.0), V1(0.0), u) == Status::Ok);
        const double e = errors[k];
        const double d_term = p.d * (e - e_last) / p.dt;
        e_last = e;
        double cmd;
        if (variant.strategy == Strategy::Legacy) {
          // I advanced first; antiwindup true stores the clipped value, false clips its use.
          i_term += p.i * p.dt * e;
          if (variant.legacy_antiwindup) i_term = std::min(std::max(i_term, lo), hi);
          const double used = std::min(std::max(i_term, lo), hi);
          cmd = std::min(std::max(p.p * e + used + d_term, p.u_min), p.u_max);
        } else {
          const double unsat = p.p * e + i_term + d_term;
          cmd = std::min(std::max(unsat, p.u_min), p.u_max);
          if (variant.strategy == Strategy::BackCalculation)
            i_term += p.dt * (p.i * e + (cmd - unsat) / tt);
          else if (variant.strategy == Strategy::None || !(cmd != unsat && e * unsat > 0))
            i_term += p.dt * p.i * e;
          i_term = std::min(std::max(i_term, lo), hi);
        }
        INFO("legacy preset " << variant.legacy_preset << " strategy " << int(variant.strategy)
                              << " antiwindup " << variant.legacy_antiwindup << " step " << k);
        REQUIRE(std::fabs(u(0) - cmd) <= 1e-12);
        REQUIRE(std::fabs(pid.integral_term()(0) - i_term) <= 1e-12);
      }
    }
  }
  SECTION("Arduino PID_v1, proportional on error and on measurement") {
    for (bool pom : {false, true}) {
      claw::presets::ArduinoPid<double> p;
      p.kp = 2.0;
      p.ki = 1.5;
      p.kd = 0.05;
      p.out_min = -1.0;
      p.out_max = 2.0;
      p.proportional_on_measurement = pom;
      p.sample_time = 0.1;
      Pid1 pid;
      REQUIRE(pid.configure(claw::presets::arduino<double, 1>(1, p)) == Status::Ok);
      double output_sum = 0.0, last_input = measured[0];
      for (int k = 0; k < 8; ++k) {
        V1 u(0.0);
        const double setpoint = errors[k] + measured[k];
        REQUIRE(pid.update(V1(setpoint), V1(measured[k]), V1(0.0), u) == Status::Ok);
        const double input = measured[k], error = setpoint - input;
        const double d_input = input - last_input;
        output_sum += p.ki * p.sample_time * error;
        if (pom) output_sum -= p.kp * d_input;
        output_sum = std::min(std::max(output_sum, p.out_min), p.out_max);
        double output = (pom ? 0.0 : p.kp * error) + output_sum - p.kd / p.sample_time * d_input;
        output = std::min(std::max(output, p.out_min), p.out_max);
        last_input = input;
        INFO("pom " << pom << " step " << k);
        REQUIRE(std::fabs(u(0) - output) <= 1e-12);
      }
    }
  }
}

TEST_CASE("Pid refuses bad input, holds its output, and refuses invalid gains",
          "[pid][bad-input]") {
  auto s = gains(10.0, 5.0, 1.0, 0.01);
  Pid1 pid;
  REQUIRE(pid.configure(s) == Status::Ok);
  V1 u(0.0);
  REQUIRE(pid.update(V1(1.0), V1(0.0), V1(0.0), u) == Status::Ok);
  const V1 held = u;
  const V1 integral = pid.integral_term();
  for (double bad : {std::nan(""), kInf, -kInf}) {
    REQUIRE(pid.update(V1(bad), V1(0.0), V1(0.0), u) == Status::NonFiniteInput);
    REQUIRE(pid.update(V1(1.0), V1(bad), V1(0.0), u) == Status::NonFiniteInput);
    REQUIRE(pid.update(V1(1.0), V1(0.0), V1(bad), u) == Status::NonFiniteInput);
    REQUIRE(pid.update(V1(1.0), V1(bad), V1(0.0), V1(0.0), V1(0.0), u) == Status::NonFiniteInput);
    REQUIRE(pid.update(V1(1.0), V1(0.0), V1(bad), V1(0.0), V1(0.0), u) == Status::NonFiniteInput);
    REQUIRE(u == held);
    REQUIRE(pid.integral_term() == integral);
  }
  REQUIRE(pid.set_gains(V1(-1.0), V1(0.0), V1(0.0)) == Status::InvalidParameter);
  REQUIRE(pid.set_gains(V1(1.0), V1(std::nan("")), V1(0.0)) == Status::InvalidParameter);
  auto bad = s;
  bad.dt = 0.0;
  REQUIRE(pid.configure(bad) == Status::InvalidParameter);
  bad = s;
  bad.iterm_min << 1.0;
  bad.iterm_max << -1.0;
  REQUIRE(pid.configure(bad) == Status::InvalidParameter);
  bad = s;
  bad.slew_rate << 0.0;
  REQUIRE(pid.configure(bad) == Status::InvalidParameter);
  bad = s;
  bad.limits.kind = claw::EffortLimitKind::Bounds;
  bad.limits.lower << 1.0;
  bad.limits.upper << 0.0;
  REQUIRE(pid.configure(bad) == Status::InvalidParameter);
  REQUIRE(pid.settings().kp(0) == 10.0);
  REQUIRE(pid.settings().ki(0) == 5.0);
  REQUIRE(pid.settings().dt == 0.01);
  // Huge finite inputs that overflow: status, output and state held.
  REQUIRE(pid.update(V1(1e308), V1(-1e308), V1(0.0), u) == Status::NumericalOverflow);
  REQUIRE(u == held);
}

TEST_CASE("signed gains: negated gains mirror the law exactly under every anti-windup",
          "[pid][signed-gains]") {
  // Arduino's REVERSE direction negates kp, ki, kd. With symmetric limits every term and device is
  // odd in the gains: the reversed law's output and integral are the direct ones negated, exactly
  // (== : a sum of zeros may be +0 on both sides).
  using Vec = Eigen::Matrix<double, 3, 1>;
  claw::PidSettings<double, 3> direct;
  direct.kp << 30.0, 2.0, 0.0;
  direct.ki << 40.0, 5.0, 8.0;
  direct.kd << 1.5, 0.0, 0.5;
  direct.integral_max.setConstant(0.02);
  direct.tracking_time << 0.0, 0.05, 0.0;  // 0: the default from |kp|, |ki|, |kd|
  direct.limits = claw::EffortLimits<double, 3>::symmetric(2.0);
  direct.derivative = claw::DerivativeSource::ErrorDifference;
  direct.derivative_filter.setConstant(200.0);
  direct.dt = 2e-3;
  claw::PidSettings<double, 3> reversed = direct;
  reversed.kp = -direct.kp;
  reversed.ki = -direct.ki;
  reversed.kd = -direct.kd;
  {
    claw::Pid<double, 3> refused;
    REQUIRE(refused.configure(reversed) == Status::InvalidParameter);  // signed_gains off
  }
  reversed.signed_gains = true;
  for (const auto aw :
       {claw::AntiWindup::None, claw::AntiWindup::IntegralClamp, claw::AntiWindup::StopAtLimit,
        claw::AntiWindup::Conditional, claw::AntiWindup::BackCalculation}) {
    for (const auto rule : {claw::IntegralRule::BackwardEuler, claw::IntegralRule::ForwardEuler}) {
      INFO("anti-windup " << static_cast<int>(aw) << ", rule " << static_cast<int>(rule));
      direct.anti_windup = reversed.anti_windup = aw;
      direct.integral_rule = reversed.integral_rule = rule;
      claw::Pid<double, 3> a, b;
      REQUIRE(a.configure(direct) == Status::Ok);
      REQUIRE(b.configure(reversed) == Status::Ok);
      std::mt19937 rng(5);
      std::uniform_real_distribution<double> uniform(-1.0, 1.0);
      Vec out_a, out_b;
      int saturated = 0;
      for (int k = 0; k < 400; ++k) {
        const Vec target = Vec::Constant(k < 200 ? 0.4 : -0.3) +
                           0.05 * Vec::NullaryExpr([&] { return uniform(rng); });
        const Vec q = 0.02 * Vec::NullaryExpr([&] { return uniform(rng); });
        const Vec v = 0.1 * Vec::NullaryExpr([&] { return uniform(rng); });
        REQUIRE(a.update(target, q, v, out_a) == Status::Ok);
        REQUIRE(b.update(target, q, v, out_b) == Status::Ok);
        REQUIRE((out_b.array() == -out_a.array()).all());
        REQUIRE((b.integral_term().array() == -a.integral_term().array()).all());
        for (int j = 0; j < 3; ++j) {
          saturated += std::fabs(out_a(j)) == 2.0;
          REQUIRE(b.error_integral(j) == a.error_integral(j));  // z = I / ki, the same state
        }
      }
      REQUIRE(saturated > 50);  // the devices were exercised, not only the linear range
    }
  }
  // set_gains follows the setting; NaN stays refused either way.
  claw::Pid<double, 3> pid;
  REQUIRE(pid.configure(reversed) == Status::Ok);
  REQUIRE(pid.set_gains(Vec::Constant(-1.0), Vec::Zero(), Vec::Zero()) == Status::Ok);
  REQUIRE(pid.set_gains(Vec::Constant(std::nan("")), Vec::Zero(), Vec::Zero()) ==
          Status::InvalidParameter);
  REQUIRE(pid.configure(direct) == Status::Ok);
  REQUIRE(pid.set_gains(Vec::Constant(-1.0), Vec::Zero(), Vec::Zero()) == Status::InvalidParameter);
}

TEST_CASE("error deadband: the integral holds while |e| <= deadband; P and D see the full error",
          "[pid][deadband]") {
  auto s = gains(2.0, 10.0, 0.0, 0.01);
  s.error_deadband << 0.1;
  Pid1 pid;
  REQUIRE(pid.configure(s) == Status::Ok);
  double integral = 0.0;
  V1 u;
  for (const double e : {0.05, -0.08, 0.3, 0.1, 0.12, -0.1, -0.25, 0.0}) {
    if (std::fabs(e) > 0.1) integral += 10.0 * (e * 0.01);  // backward Euler, outside the band
    REQUIRE(pid.update(V1(e), V1(0.0), V1(0.0), u) == Status::Ok);
    REQUIRE(pid.integral_term()(0) == integral);
    REQUIRE(u(0) == 2.0 * e + integral);
  }
  // Saturated with back-calculation: inside the band nothing moves the integral, not even the
  // correction; a joint without a band (0) still takes it at e = 0.
  claw::PidSettings<double, 2> t;
  t.kp.setConstant(1.0);
  t.ki.setConstant(5.0);
  t.error_deadband << 0.2, 0.0;
  t.anti_windup = claw::AntiWindup::BackCalculation;
  t.tracking_time.setConstant(0.1);
  t.limits = claw::EffortLimits<double, 2>::symmetric(0.5);
  t.dt = 0.01;
  claw::Pid<double, 2> two;
  REQUIRE(two.configure(t) == Status::Ok);
  using V2 = Eigen::Matrix<double, 2, 1>;
  REQUIRE(two.set_integral_term(V2(3.0, 3.0)) == Status::Ok);
  V2 out;
  REQUIRE(two.update(V2(0.15, 0.0), V2::Zero(), V2::Zero(), out) == Status::Ok);
  REQUIRE(out(0) == 0.5);
  REQUIRE(two.integral_term()(0) == 3.0);
  REQUIRE(two.integral_term()(1) == 3.0 + 0.01 * ((0.5 - 3.0) / 0.1));
  // A negative or NaN band is refused.
  for (const double bad : {-0.1, std::nan("")}) {
    auto refused = s;
    refused.error_deadband << bad;
    REQUIRE(pid.configure(refused) == Status::InvalidParameter);
  }
}

TEST_CASE("activation dynamics: integrator, filter and exact filter follow their closed forms",
          "[pid][activation][closed-form]") {
  using V2 = Eigen::Matrix<double, 2, 1>;
  const double h = 0.002, tau = 0.05;
  const V2 u(0.6, -0.3);
  for (const auto kind : {claw::ActivationKind::Integrator, claw::ActivationKind::Filter,
                          claw::ActivationKind::FilterExact}) {
    for (const bool early : {false, true}) {
      claw::ActivationSettings<double, 2> s;
      s.kind = kind;
      s.time_constant.setConstant(tau);
      s.early = early;
      s.dt = h;
      claw::ActivationDynamics<double, 2> dynamics;
      REQUIRE(dynamics.configure(s) == Status::Ok);
      V2 r, rate;
      for (int k = 0; k < 200; ++k) {
        // a_k, the activation before step k, from its closed form (a_0 = 0, u constant).
        const auto closed = [&](int steps, double uj) {
          if (kind == claw::ActivationKind::Integrator) return steps * h * uj;
          if (kind == claw::ActivationKind::Filter)
            return uj * (1.0 - std::pow(1.0 - h / tau, steps));
          return uj * (1.0 - std::exp(-steps * h / tau));
        };
        REQUIRE(dynamics.update(u, r, rate) == Status::Ok);
        for (int j = 0; j < 2; ++j) {
          const double before = closed(k, u(j)), after = closed(k + 1, u(j));
          REQUIRE(std::fabs(r(j) - (early ? after : before)) <= 1e-12);
          const double expected_rate =
              kind == claw::ActivationKind::Integrator ? u(j) : (u(j) - before) / tau;
          REQUIRE(std::fabs(rate(j) - expected_rate) <= 1e-10);
          REQUIRE(std::fabs(dynamics.activation()(j) - after) <= 1e-12);
        }
      }
    }
  }
  // None: the setpoint is u, its rate 0, no state.
  claw::ActivationDynamics<double, 2> none;
  V2 r, rate;
  REQUIRE(none.update(u, r, rate) == Status::Ok);
  REQUIRE(r == u);
  REQUIRE(rate == V2::Zero());
  // Bad input and settings: refused, nothing touched; no allocation in update.
  claw::ActivationSettings<double, 2> s;
  s.kind = claw::ActivationKind::Filter;
  s.time_constant << 0.05, 0.0;
  REQUIRE(none.configure(s) == Status::InvalidParameter);
  s.time_constant << 0.05, std::numeric_limits<double>::infinity();
  REQUIRE(none.configure(s) == Status::InvalidParameter);
  s.time_constant.setConstant(0.05);
  REQUIRE(none.configure(s) == Status::Ok);
  REQUIRE(none.update(u, r, rate) == Status::Ok);
  const V2 held = none.activation(), r_held = r;
  REQUIRE(none.update(V2(std::nan(""), 0.0), r, rate) == Status::NonFiniteInput);
  REQUIRE(none.activation() == held);
  REQUIRE(r == r_held);
  claw::ActivationDynamics<double> dynamic(3);
  Eigen::VectorXd u3 = Eigen::VectorXd::Ones(3), r3(3), rate3(3), wrong(2);
  REQUIRE(dynamic.update(u3, wrong, rate3) == Status::SizeMismatch);
  Status status = Status::InvalidProblem;
  REQUIRE(claw_test::allocations_during([&] { status = dynamic.update(u3, r3, rate3); }) == 0);
  REQUIRE(status == Status::Ok);
}

TEST_CASE(
    "control_toolbox: I-term bounds after the back-calculation correction; invalid ones refused",
    "[pid][presets]") {
  claw::presets::ControlToolboxPid<double> p;
  p.p = 0.0;
  p.i = 1.0;
  p.u_min = -5.0;
  p.u_max = 5.0;
  p.i_min = -10.0;
  p.i_max = 10.0;
  p.tracking_time = 1.0;
  p.dt = 1.0;
  Pid1 pid;
  REQUIRE(pid.configure(claw::presets::control_toolbox<double, 1>(p)) == Status::Ok);
  REQUIRE(pid.set_integral_term(V1(9.5)) == Status::Ok);
  V1 u;
  // u = I = 9.5 -> 5; I+ = clip(9.5 + 1 (1 * 2 + (5 - 9.5) / 1), -10, 10) = 7 (clipping the
  // advance first would give 10 - 4.5 = 5.5).
  REQUIRE(pid.update(V1(2.0), V1(0.0), V1(0.0), u) == Status::Ok);
  REQUIRE(u(0) == 5.0);
  REQUIRE(pid.integral_term()(0) == 7.0);
  // i_min > i_max is refused under every strategy and by both presets, as control_toolbox does.
  p.i_min = 1.0;
  p.i_max = -1.0;
  for (auto strategy : {claw::presets::ControlToolboxStrategy::None,
                        claw::presets::ControlToolboxStrategy::BackCalculation,
                        claw::presets::ControlToolboxStrategy::ConditionalIntegration,
                        claw::presets::ControlToolboxStrategy::Legacy}) {
    p.strategy = strategy;
    REQUIRE(pid.configure(claw::presets::control_toolbox<double, 1>(p)) ==
            Status::InvalidParameter);
    REQUIRE(pid.configure(claw::presets::control_toolbox_legacy<double, 1>(p)) ==
            Status::InvalidParameter);
  }
}

TEST_CASE("ITermClampInOutput: the state runs free, the output uses it clipped (both rules)",
          "[pid][anti-windup]") {
  for (auto rule : {claw::IntegralRule::ForwardEuler, claw::IntegralRule::BackwardEuler}) {
    auto s = gains(0.0, 1.0, 0.0, 1.0);
    s.anti_windup = claw::AntiWindup::ITermClampInOutput;
    s.integral_rule = rule;
    s.iterm_min << -1.0;
    s.iterm_max << 1.0;
    Pid1 pid;
    REQUIRE(pid.configure(s) == Status::Ok);
    double state = 0.0;
    for (double e : {2.0, 2.0, 2.0, -5.0, -1.0, 0.5}) {
      V1 u;
      REQUIRE(pid.update(V1(e), V1(0.0), V1(0.0), u) == Status::Ok);
      const double before = state;
      state += e;  // ki e h with ki = h = 1, unbounded
      const double used = rule == claw::IntegralRule::BackwardEuler ? state : before;
      REQUIRE(u(0) == std::min(std::max(used, -1.0), 1.0));
      REQUIRE(pid.integral_term()(0) == state);
    }
  }
}

TEST_CASE("configure moves the integral into narrowed clamp bounds at once, keeps it otherwise",
          "[pid][anti-windup]") {
  auto s = gains(1.0, 10.0, 0.0, 0.01);
  s.anti_windup = claw::AntiWindup::ITermClamp;
  s.iterm_min << -5.0;
  s.iterm_max << 5.0;
  Pid1 pid;
  REQUIRE(pid.configure(s) == Status::Ok);
  REQUIRE(pid.set_integral_term(V1(4.0)) == Status::Ok);
  s.iterm_max << 3.0;  // PID_v1's SetOutputLimits below outputSum
  REQUIRE(pid.configure(s) == Status::Ok);
  REQUIRE(pid.integral_term()(0) == 3.0);
  s.iterm_max << 8.0;  // widened: nothing moves
  REQUIRE(pid.configure(s) == Status::Ok);
  REQUIRE(pid.integral_term()(0) == 3.0);
  s.anti_windup = claw::AntiWindup::IntegralClamp;  // |I| <= ki integral_max = 10 * 0.2
  s.integral_max << 0.2;
  REQUIRE(pid.set_integral_term(V1(-7.0)) == Status::Ok);
  REQUIRE(pid.configure(s) == Status::Ok);
  REQUIRE(pid.integral_term()(0) == -2.0);
  s.anti_windup = claw::AntiWindup::ITermClampInOutput;  // bounds only the I the output uses
  REQUIRE(pid.configure(s) == Status::Ok);
  REQUIRE(pid.set_integral_term(V1(-7.0)) == Status::Ok);
  REQUIRE(pid.integral_term()(0) == -7.0);
  s.anti_windup = claw::AntiWindup::None;  // the I-term bounds [-5, 8] bound every other device's I
  REQUIRE(pid.configure(s) == Status::Ok);
  REQUIRE(pid.integral_term()(0) == -5.0);
  REQUIRE(pid.set_integral_term(V1(9.0)) == Status::Ok);  // clipped into the bounds too
  REQUIRE(pid.integral_term()(0) == 8.0);
  REQUIRE(pid.set_integral_term(0, -9.0) == Status::Ok);
  REQUIRE(pid.integral_term()(0) == -5.0);
  REQUIRE(pid.reset(V1(0.0), V1(-9.0)) == Status::Ok);  // I = output - c = -9 -> -5
  REQUIRE(pid.integral_term()(0) == -5.0);
  s.iterm_min << -kInf;
  REQUIRE(pid.configure(s) == Status::Ok);
  REQUIRE(pid.set_integral_term(V1(-7.0)) == Status::Ok);
  REQUIRE(pid.integral_term()(0) == -7.0);
  auto bad = s;
  bad.kp << -1.0;  // refused: state untouched too
  REQUIRE(pid.configure(bad) == Status::InvalidParameter);
  REQUIRE(pid.integral_term()(0) == -7.0);
}

TEST_CASE(
    "IntegralClamp within I-term bounds: I stays in their intersection, disjoint ones refused",
    "[pid][anti-windup][bad-input]") {
  // IntegralClamp bounds |I| by |ki| integral_max = 5 * 0.2 = 1; the I-term bounds [-0.5, 2]
  // narrow that to [-0.5, 1]. A kept error drives I onto each end exactly.
  auto s = gains(0.0, 5.0, 0.0, 0.1);
  s.anti_windup = claw::AntiWindup::IntegralClamp;
  s.integral_max << 0.2;
  s.iterm_min << -0.5;
  s.iterm_max << 2.0;
  REQUIRE(s.integral_bounds(0, 5.0).lower == -0.5);
  REQUIRE(s.integral_bounds(0, 5.0).upper == 1.0);
  Pid1 pid;
  REQUIRE(pid.configure(s) == Status::Ok);
  V1 u;
  for (int k = 0; k < 10; ++k) REQUIRE(pid.update(V1(1.0), V1(0.0), V1(0.0), u) == Status::Ok);
  REQUIRE(pid.integral_term()(0) == 1.0);
  REQUIRE(u(0) == 1.0);
  for (int k = 0; k < 10; ++k) REQUIRE(pid.update(V1(-1.0), V1(0.0), V1(0.0), u) == Status::Ok);
  REQUIRE(pid.integral_term()(0) == -0.5);
  // Disjoint: I >= 1.5 and |I| <= 1 hold for no I. Refused, the installed settings kept.
  auto disjoint = s;
  disjoint.iterm_min << 1.5;
  REQUIRE(!(disjoint.integral_bounds(0, 5.0).lower <= disjoint.integral_bounds(0, 5.0).upper));
  REQUIRE(disjoint.validate(1) == Status::InvalidParameter);
  REQUIRE(pid.configure(disjoint) == Status::InvalidParameter);
  REQUIRE(pid.settings().iterm_min(0) == -0.5);
  auto mirror = s;
  mirror.iterm_min << -3.0;
  mirror.iterm_max << -1.5;
  REQUIRE(pid.configure(mirror) == Status::InvalidParameter);
  // Touching ends meet in one point: accepted.
  auto touching = s;
  touching.iterm_min << 1.0;
  REQUIRE(pid.configure(touching) == Status::Ok);
  REQUIRE(pid.integral_term()(0) == 1.0);
  // A gain change that would separate them is refused too (|ki| integral_max = 0.1 * 0.2 < 1).
  REQUIRE(pid.set_gains(V1(0.0), V1(0.1), V1(0.0)) == Status::InvalidParameter);
  REQUIRE(pid.settings().ki(0) == 5.0);
  REQUIRE(pid.set_gains(V1(0.0), V1(-5.0), V1(0.0)) == Status::InvalidParameter);  // unsigned
  // A smaller ki narrows IntegralClamp's bound: I (at 1) moves onto the new end at once.
  REQUIRE(pid.configure(s) == Status::Ok);
  REQUIRE(pid.integral_term()(0) == 1.0);
  REQUIRE(pid.set_gains(V1(0.0), V1(4.0), V1(0.0)) == Status::Ok);  // |I| <= 4 * 0.2
  REQUIRE(pid.integral_term()(0) == Approx(0.8).epsilon(1e-15));
  REQUIRE(pid.set_state(pid.state()) == Status::Ok);  // the snapshot is within its bounds
  // With signed gains the bound is |ki| integral_max: ki = -5 gives the same [-0.5, 1].
  auto reversed = s;
  reversed.signed_gains = true;
  reversed.ki << -5.0;
  REQUIRE(reversed.integral_bounds(0, -5.0).upper == 1.0);
  REQUIRE(reversed.integral_bounds(0, -5.0).lower == -0.5);
  REQUIRE(pid.configure(reversed) == Status::Ok);
  reversed.iterm_min << 1.5;  // disjoint again, whatever the sign
  REQUIRE(pid.configure(reversed) == Status::InvalidParameter);
  // ki = 0: with integral_max = +inf nothing is clamped (0 * inf is no bound), with a finite
  // integral_max I is held at 0, which [1, 2] does not contain.
  touching.ki << 0.0;
  touching.integral_max << kInf;
  REQUIRE(touching.validate(1) == Status::Ok);
  REQUIRE(touching.integral_bounds(0, 0.0).upper == 2.0);
  touching.integral_max << 0.2;
  REQUIRE(touching.validate(1) == Status::InvalidParameter);
  // Other anti-windup devices do not use integral_max: the same bounds are valid there.
  disjoint.anti_windup = claw::AntiWindup::ITermClamp;
  REQUIRE(pid.configure(disjoint) == Status::Ok);
}

TEST_CASE("set_gains is bumpless and reset(measurement, output) starts without a jump",
          "[pid][bumpless]") {
  auto s = gains(10.0, 5.0, 0.0, 0.01);
  Pid1 pid;
  REQUIRE(pid.configure(s) == Status::Ok);
  V1 u(0.0);
  for (int k = 0; k < 50; ++k) REQUIRE(pid.update(V1(0.2), V1(0.1), V1(0.0), u) == Status::Ok);
  const double integral = pid.integral_term()(0);
  REQUIRE(pid.set_gains(V1(10.0), V1(50.0), V1(0.0)) == Status::Ok);
  REQUIRE(pid.integral_term()(0) == integral);  // I in effort units: unchanged by the new ki
  REQUIRE(pid.update(V1(0.1), V1(0.1), V1(0.0), u) == Status::Ok);  // zero error
  REQUIRE(u(0) == integral);  // the output continues from the I term (ki e h = 0)
  REQUIRE(pid.reset(V1(0.4), V1(3.0)) == Status::Ok);
  REQUIRE(pid.update(V1(0.4), V1(0.4), V1(0.0), u) == Status::Ok);
  REQUIRE(u(0) == 3.0);
}

TEST_CASE("reset(measurement, output) seeds the measurement history of the next step",
          "[pid][bumpless]") {
  // Derivative on the measurement, kd = 2, h = 0.01, ki = 0: after reset(0.4, 3.0) the step at
  // q = 0.5 (target 0.4) gives u = kp e + I + kd (-(q - 0.4) / h) = 10 (-0.1) + 3 - 2 (10) = -18.
  auto s = gains(10.0, 0.0, 2.0, 0.01);
  s.derivative = claw::DerivativeSource::Measurement;
  Pid1 pid;
  REQUIRE(pid.configure(s) == Status::Ok);
  V1 u(0.0);
  REQUIRE(pid.reset(V1(0.4), V1(3.0)) == Status::Ok);
  REQUIRE(pid.update(V1(0.4), V1(0.5), V1(0.0), u) == Status::Ok);
  CHECK(u(0) == Approx(-18.0).epsilon(1e-12));
  // Proportional on the measurement, backward Euler (the term enters I before the output): the
  // same step moves I by -kp (q - 0.4) = -1, so u = 3 - 1 + kd d = -18 as well.
  s.proportional_on_measurement = true;
  s.integral_rule = claw::IntegralRule::BackwardEuler;
  REQUIRE(pid.configure(s) == Status::Ok);
  REQUIRE(pid.reset(V1(0.4), V1(3.0)) == Status::Ok);
  REQUIRE(pid.update(V1(0.4), V1(0.5), V1(0.0), u) == Status::Ok);
  CHECK(u(0) == Approx(-18.0).epsilon(1e-12));
  CHECK(pid.integral_term()(0) == Approx(2.0).epsilon(1e-12));
  // A plain reset() has no measurement: the first step's change is 0 (u = I + kd d = 0).
  pid.reset();
  REQUIRE(pid.update(V1(0.4), V1(0.5), V1(0.0), u) == Status::Ok);
  CHECK(u(0) == Approx(0.0).margin(1e-12));
}

TEMPLATE_TEST_CASE("PID family hot calls allocate nothing", "[pid][allocation]", float, double) {
  using S = TestType;
  using Vec7 = claw::Vector<S, 7>;
  using VecDyn = claw::Vector<S, claw::Dynamic>;
  claw::Pid<S, 7> fixed;
  auto fixed_settings = fixed.settings();
  fixed_settings.kp.setConstant(S(10));
  fixed_settings.ki.setConstant(S(2));
  fixed_settings.kd.setConstant(S(1));
  fixed_settings.anti_windup = claw::AntiWindup::BackCalculation;
  fixed_settings.slew_rate.setConstant(S(3));
  fixed_settings.derivative_filter.setConstant(S(100));
  fixed_settings.limits.kind = claw::EffortLimitKind::DcMotor;
  fixed_settings.limits.stall_effort.setConstant(S(5));
  fixed_settings.limits.peak_effort.setConstant(S(3));
  fixed_settings.limits.no_load_speed.setConstant(S(10));
  REQUIRE(fixed.configure(fixed_settings) == Status::Ok);
  claw::Pid<S, claw::Dynamic> dynamic(50);
  auto dynamic_settings = dynamic.settings();
  dynamic_settings.kp.setConstant(S(10));
  dynamic_settings.ki.setConstant(S(2));
  dynamic_settings.wrap_period.setConstant(S(6.25));
  REQUIRE(dynamic.configure(dynamic_settings) == Status::Ok);
  claw::StablePd<S, 7> stable;
  claw::StablePd<S, claw::Dynamic> stable_dynamic(7);
  claw::VelocityServo<S, claw::Dynamic> servo(50);
  const Vec7 q7 = Vec7::Constant(S(0.2));
  Vec7 out7;
  const Eigen::Matrix<S, 7, 7> a7 = Eigen::Matrix<S, 7, 7>::Identity();
  const Eigen::Matrix<S, claw::Dynamic, claw::Dynamic> ax = a7;
  VecDyn q50 = VecDyn::Constant(50, S(0.2)), out50(50), other50(50), out7x(7);
  const VecDyn q7x = VecDyn::Constant(7, S(0.2));
  Status statuses[10] = {};
  const std::size_t allocations = claw_test::allocations_during([&] {
    statuses[0] = fixed.update(q7, q7 * S(2), q7, out7);
    statuses[1] = fixed.update(q7, q7, q7, q7, q7, out7);
    statuses[2] = dynamic.update(q50, q50 * S(3), q50, out50);
    statuses[3] = fixed.set_gains(fixed_settings.kp, fixed_settings.ki, fixed_settings.kd);
    statuses[4] = stable.update_full(q7, q7, q7, q7, q7, a7, out7);
    statuses[5] = stable_dynamic.update_full(q7x, q7x, q7x, q7x, q7x, ax, out7x);
    statuses[6] = servo.update(q50, out50, other50);
    statuses[7] = dynamic.reset(q50, q50);
    statuses[8] = fixed.update(q7, q7 * S(2), q7, S(0.003), out7);
    statuses[9] = dynamic.update(q50, q50, q50, q50, q50, S(0.002), out50);
  });
  for (Status st : statuses) REQUIRE(st == Status::Ok);
  REQUIRE(allocations == 0);
}

TEMPLATE_TEST_CASE("the simple path of Pid::update gives the general path's numbers", "[pid][fast]",
                   float, double) {
  // The simple (raw-array, vectorisable) path runs for contiguous inputs and plain settings; a
  // slew rate of 1e30 never binds but sends the same law down the general path, and so does a
  // strided input. All three must agree bit for bit, including the signs of zeros and the joints
  // held on overflow, for every variant of the simple path: backward/forward Euler, c read or
  // skipped (all +0), the lower integral bound read or taken as minus the upper (symmetric), and
  // sizes that leave vector remainders.
  using S = TestType;
  using Vec = claw::Vector<S, claw::Dynamic>;
  using Mat = Eigen::Matrix<S, claw::Dynamic, claw::Dynamic>;
  const S huge = std::numeric_limits<S>::max() / S(1.5);  // kp huge * |e| > 1.5 overflows
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  const auto u = [&] { return static_cast<S>(uniform(rng)); };
  for (const Eigen::Index n :
       {Eigen::Index(1), Eigen::Index(7), Eigen::Index(37), Eigen::Index(100)}) {
    for (int trial = 0; trial < 48; ++trial) {
      claw::PidSettings<S, claw::Dynamic> s;
      s.resize(n);
      const int constant_kind = (trial / 2) % 3;  // 0: random c, 1: all +0 (skipped), 2: all -0
      const int iterm_kind = (trial / 4) % 3;     // 0: asymmetric, 1: symmetric, 2: [+0, +0]
      for (Eigen::Index j = 0; j < n; ++j) {
        s.kp(j) = 50 * (u() + 1);
        s.ki(j) = (trial % 3 == 0 || j % 7 == 3) ? S(0) : 20 * (u() + 1);
        s.kd(j) = 2 * (u() + 1);
        s.constant_effort(j) = constant_kind == 0 ? u() : (constant_kind == 1 ? S(0) : S(-0.0));
        s.integral_max(j) =
            j % 5 == 3 ? std::numeric_limits<S>::infinity() : S(0.05) * (u() + S(1.5));
        s.iterm_max(j) = S(0.4) + u() * S(0.2);
        s.iterm_min(j) = iterm_kind == 0 ? S(-0.5) - u() * S(0.2) : -s.iterm_max(j);
        if (iterm_kind == 2) s.iterm_min(j) = s.iterm_max(j) = S(0);
        s.limits.lower(j) = -10 - u();
        s.limits.upper(j) = 10 + u();
      }
      if (trial % 8 == 7)  // a few joints whose output overflows for large errors
        for (Eigen::Index j = 0; j < n; j += 3) s.kp(j) = huge;
      const claw::AntiWindup kinds[] = {claw::AntiWindup::None, claw::AntiWindup::IntegralClamp,
                                        claw::AntiWindup::ITermClamp};
      s.anti_windup = kinds[trial % 3];
      s.integral_rule =
          (trial / 3) % 2 ? claw::IntegralRule::ForwardEuler : claw::IntegralRule::BackwardEuler;
      if ((trial / 6) % 2 == 0)
        s.limits = claw::EffortLimits<S, claw::Dynamic>::none(n);
      else
        s.limits.kind = claw::EffortLimitKind::Bounds;
      const bool full = (trial / 12) % 2 == 1;
      s.dt = trial < 24 ? S(1e-3) : S(0.02);
      auto general = s;
      general.slew_rate.setConstant(S(1e30));
      claw::Pid<S, claw::Dynamic> fast(n), slow(n), strided(n);
      REQUIRE(fast.configure(s) == Status::Ok);
      REQUIRE(slow.configure(general) == Status::Ok);
      REQUIRE(strided.configure(s) == Status::Ok);
      Vec out_fast = Vec::Zero(n), out_slow = out_fast;
      Mat out_strided = Mat::Zero(2, n);  // a row of it is strided
      for (int k = 0; k < 60; ++k) {
        Mat inputs = Mat::NullaryExpr(5, n, [&] { return u(); });
        inputs.row(0) *= S(0.5);
        if (k % 7 == 3) inputs.row(3).setZero();  // e = +-0 exactly where q* is +-0
        const Vec target = inputs.row(0).transpose(), tv = inputs.row(1).transpose(),
                  ff = inputs.row(2).transpose(), q = inputs.row(3).transpose(),
                  v = inputs.row(4).transpose();
        Status st_fast, st_slow, st_strided;
        if (full) {
          st_fast = fast.update(target, tv, ff, q, v, out_fast);
          st_slow = slow.update(target, tv, ff, q, v, out_slow);
          st_strided = strided.update(inputs.row(0), inputs.row(1), inputs.row(2), inputs.row(3),
                                      inputs.row(4), out_strided.row(1));
        } else {
          st_fast = fast.update(target, q, v, out_fast);
          st_slow = slow.update(target, q, v, out_slow);
          st_strided =
              strided.update(inputs.row(0), inputs.row(3), inputs.row(4), out_strided.row(1));
        }
        INFO("n " << n << " trial " << trial << " step " << k);
        REQUIRE((st_fast == Status::Ok || st_fast == Status::NumericalOverflow));
        if (trial % 8 != 7) REQUIRE(st_fast == Status::Ok);
        REQUIRE(st_fast == st_slow);
        REQUIRE(st_fast == st_strided);
        REQUIRE(same_bits(out_fast, out_slow));
        REQUIRE(same_bits(out_fast, out_strided.row(1)));
        REQUIRE(same_bits(fast.integral_term(), slow.integral_term()));
        REQUIRE(same_bits(fast.integral_term(), strided.integral_term()));
        REQUIRE(claw::all_finite(out_fast));
        REQUIRE(claw::all_finite(fast.integral_term()));
      }
    }
  }
}

TEST_CASE("pd_effort: parallel and series forms, limits, bad input", "[pid][pd]") {
  const Eigen::Vector2d target(1.0, -0.5), target_v(0.5, 0.0), q(0.25, 0.0), v(0.0, 1.0);
  const Eigen::Vector2d kp(8.0, 4.0), kd(0.5, 0.25);
  claw::EffortLimits<double, 2> limits;
  limits.kind = claw::EffortLimitKind::Bounds;
  limits.lower << -100.0, -1.0;
  limits.upper << 100.0, 1.0;
  Eigen::Vector2d out(0.0, 0.0);
  REQUIRE(claw::pd_effort(target, target_v, q, v, kp, kd, claw::PdForm::Parallel, limits, out) ==
          Status::Ok);
  REQUIRE(out(0) == 8.0 * 0.75 + 0.5 * 0.5);
  REQUIRE(out(1) == -1.0);  // 4 (-0.5) + 0.25 (-1) = -2.25, clipped
  REQUIRE(claw::pd_effort(target, target_v, q, v, kp, kd, claw::PdForm::Series, limits, out) ==
          Status::Ok);
  REQUIRE(out(0) == 8.0 * (0.75 + 0.5 * 0.5));
  const Eigen::Vector2d held = out;
  REQUIRE(claw::pd_effort(Eigen::Vector2d(std::nan(""), 0.0), target_v, q, v, kp, kd,
                          claw::PdForm::Parallel, limits, out) == Status::NonFiniteInput);
  REQUIRE(claw::pd_effort(target, target_v, q, v, Eigen::Vector2d(-1.0, 1.0), kd,
                          claw::PdForm::Parallel, limits, out) == Status::InvalidParameter);
  REQUIRE(out == held);
}

TEST_CASE("VelocityServo refuses bad input and settings, holding its outputs", "[pid][bad-input]") {
  claw::VelocityServo<double, 1> servo;
  const claw::presets::CoppeliaSimJoint<double> joint{2.0, 1.0, 0.1, 3.0, 40.0, 0.005};
  auto settings = claw::presets::coppeliasim_joint<double, 1>(joint);
  // The fixed-size preset is the sized one with n = N.
  const auto sized = claw::presets::coppeliasim_joint<double, 1>(1, joint);
  CHECK(settings.kp == sized.kp);
  CHECK(settings.velocity_limit == sized.velocity_limit);
  CHECK(settings.dt == sized.dt);
  REQUIRE(servo.configure(settings) == Status::Ok);
  V1 velocity(0.0), force(0.0);
  REQUIRE(servo.update(V1(0.001), velocity, force) == Status::Ok);
  // ctrl = 2 e + 1 (e h) (first call: no D) -> velocity = ctrl / h.
  REQUIRE(std::fabs(velocity(0) - (2.0 * 0.001 + 0.001 * 0.005) / 0.005) <= 1e-15);
  REQUIRE(force(0) == 40.0);
  const V1 held_velocity = velocity;
  REQUIRE(servo.update(V1(std::nan("")), velocity, force) == Status::NonFiniteInput);
  REQUIRE(velocity == held_velocity);
  auto bad = settings;
  bad.velocity_limit << -1.0;
  REQUIRE(servo.configure(bad) == Status::InvalidParameter);
  bad = settings;
  bad.dt = 0.0;
  REQUIRE(servo.configure(bad) == Status::InvalidParameter);
  REQUIRE(servo.settings().velocity_limit(0) == 3.0);
  // Setting I to 0 resets the error sum, as CoppeliaSim does.
  REQUIRE(servo.set_gains(V1(2.0), V1(0.0), V1(0.1)) == Status::Ok);
  REQUIRE(servo.pid().integral_term()(0) == 0.0);
}
