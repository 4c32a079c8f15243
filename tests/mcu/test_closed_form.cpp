// tests/mcu/test_closed_form.cpp: closed-form law tests in float on the board: ZOH under constant
// acceleration, PD sag m g / kp and its removal by PID, the slew ramp, the anti-windup clamps, the
// back-calculation decay, and stable PD bounded at kp h^2 = 100 where explicit PD diverges.
// Each tolerance is exact (==) where every value is a short binary fraction, or derived in place.
#include <cmath>
#include <cstdio>

#include "claw/integrators/zoh.hpp"
#include "claw/laws/pid.hpp"
#include "claw/laws/slew_limiter.hpp"
#include "claw/laws/stable_pd.hpp"
#include "harness.hpp"

namespace claw_mcu {
namespace {

using claw::Status;
using F1 = Eigen::Matrix<float, 1, 1>;
using Pid1f = claw::Pid<float, 1>;

claw::PidSettings<float, 1> gains(float kp, float ki, float kd, float dt) {
  claw::PidSettings<float, 1> s;
  s.kp << kp;
  s.ki << ki;
  s.kd << kd;
  s.dt = dt;
  return s;
}

// Constant acceleration inside the bounds: p_n = p0 + n dt v0 + a dt^2 n (n + 1) / 2,
// v_n = v0 + n dt a. With dt = 2^-10, p0 = 1/8, v0 = -1/4, a = 3/2 every velocity is a multiple of
// 2^-11 below 2 and every position a multiple of 2^-21 below 1 (at most 22 significant bits), so
// float holds every value exactly and the check is ==, in both modes.
void zoh_constant_acceleration() {
  const float dt = 1.0f / 1024, p0 = 0.125f, v0 = -0.25f, a = 1.5f;
  for (claw::ZohMode mode : {claw::ZohMode::JiminyCompatible, claw::ZohMode::Viable}) {
    Test test("closed form: ZOH constant acceleration, float, 7 joints, %s mode",
              mode == claw::ZohMode::Viable ? "viable" : "jiminy");
    claw::StateMatrix<float, 7> state, lower, upper;
    lower.row(0).setConstant(-100.0f);
    lower.row(1).setConstant(-50.0f);
    lower.row(2).setConstant(-20.0f);
    upper = -lower;
    state.row(0).setConstant(p0);
    state.row(1).setConstant(v0);
    state.row(2).setConstant(a);
    for (int n = 1; n <= 1000 && !test.failed(); ++n) {
      const Status status = claw::integrate_zoh(state, lower, upper, dt, mode);
      test.check(status == Status::Ok, "step %d: status %s", n, claw::to_string(status));
      const float nn = float(n);
      const float p = p0 + nn * dt * v0 + a * dt * dt * nn * (nn + 1) / 2;
      const float v = v0 + nn * dt * a;
      for (int j = 0; j < 7; ++j)
        test.check(state(0, j) == p && state(1, j) == v && state(2, j) == a,
                   "step %d joint %d: [%.9g %.9g %.9g] != [%.9g %.9g %.9g]", n, j,
                   double(state(0, j)), double(state(1, j)), double(state(2, j)), double(p),
                   double(v), double(a));
    }
  }
}

// Mass m under gravity g, the force held over h and integrated exactly in float: returns q* - q
// after `seconds`. At rest the PD law gives kp e = m g: e = m g / kp.
float steady_state_error(Pid1f& pid, float m, float g, float target, float h, float seconds,
                         Test& test) {
  float q = 0.0f, v = 0.0f;
  F1 u(0.0f);
  const int steps = int(seconds / h);
  for (int k = 0; k < steps; ++k) {
    if (!test.check(pid.update(F1(target), F1(q), F1(v), u) == Status::Ok, "step %d", k)) break;
    const float acceleration = (u(0) - m * g) / m;
    q += v * h + 0.5f * acceleration * h * h;
    v += acceleration * h;
  }
  return target - q;
}

// Tolerance 1e-5 [m]: the float plant stops moving once |v h| is below half an ulp of q (q near
// 0.3: 1.5e-8, so |v| < 1.5e-5 m/s), and from there the slowest mode (time constant 0.1 s for
// m = 2, kp = 400, kd = 60: poles -10 and -20) would still travel at most 1.5e-6 m; 1e-5 leaves a
// factor 6. For the PID the integral stops growing once ki e h is below half an ulp of I (I near
// m g = 19.62: 9.5e-7, so |e| < 1.2e-6); I then holds m g within kp 1.2e-6 + rounding: 1e-3 [N].
void gravity_steady_state() {
  const float m = 2.0f, g = 9.81f, kp = 400.0f, kd = 60.0f, h = 1e-3f, target = 0.3f;
  {
    Test test("closed form: PD under gravity settles at m g / kp (float)");
    Pid1f pd;
    test.check(pd.configure(gains(kp, 0.0f, kd, h)) == Status::Ok, "configure");
    const float error = steady_state_error(pd, m, g, target, h, 10.0f, test);
    test.check(std::fabs(error - m * g / kp) <= 1e-5f, "error %.9g != m g / kp = %.9g",
               double(error), double(m * g / kp));
  }
  {
    Test test("closed form: PID removes the gravity sag, I = m g (float)");
    Pid1f pid;
    test.check(pid.configure(gains(kp, 800.0f, kd, h)) == Status::Ok, "configure");
    const float error = steady_state_error(pid, m, g, target, h, 20.0f, test);
    test.check(std::fabs(error) <= 1e-5f, "error %.9g", double(error));
    test.check(std::fabs(pid.integral_term()(0) - m * g) <= 1e-3f, "I = %.9g != m g = %.9g",
               double(pid.integral_term()(0)), double(m * g));
  }
}

// Slew limit: h = 1/128, S = 2, so S h = 1/64 and every ramp value 1/4 + k/64 is exact: ==.
void slew_ramp() {
  const float h = 1.0f / 128, rate = 2.0f, measured = 0.25f, target = 1.0f;
  {
    Test test("closed form: PID slew limit ramps at exactly S (float)");
    auto s = gains(1.0f, 0.0f, 0.0f, h);
    s.slew_rate << rate;
    Pid1f pid;
    test.check(pid.configure(s) == Status::Ok, "configure");
    F1 u(0.0f);
    float previous = measured;
    for (int k = 0; k < 100 && !test.failed(); ++k) {
      test.check(pid.update(F1(target), F1(measured), F1(0.0f), u) == Status::Ok, "step %d", k);
      const float expected = std::fmin(previous + rate * h, target);
      test.check(pid.slew_state()(0) == expected, "step %d: %.9g != %.9g", k,
                 double(pid.slew_state()(0)), double(expected));
      test.check(u(0) == expected - measured, "step %d: u %.9g", k, double(u(0)));
      previous = expected;
    }
  }
  {
    Test test("closed form: SlewLimiter ramps at exactly S (float)");
    claw::SlewLimiter<float, 2> limiter;
    test.check(limiter.configure(Eigen::Vector2f(rate, 4 * rate),
                                 claw::SlewStart::FromMeasurement) == Status::Ok,
               "configure");
    Eigen::Vector2f out;
    for (int k = 1; k <= 200 && !test.failed(); ++k) {
      test.check(limiter.update(Eigen::Vector2f(1.0f, -1.0f), Eigen::Vector2f::Zero(), h, out) ==
                     Status::Ok,
                 "step %d", k);
      const float up = std::fmin(float(k) * rate * h, 1.0f);
      const float down = std::fmax(-float(k) * 4 * rate * h, -1.0f);
      test.check(out(0) == up && out(1) == down, "step %d: %.9g %.9g", k, double(out(0)),
                 double(out(1)));
    }
  }
}

// Integral clamp and I-term clamp: the integral ends pinned exactly at its limit (the same float
// product ki integral_max the law computes).
void anti_windup_clamps() {
  Test test("closed form: integral and I-term clamps pin I at their limits (float)");
  const float h = 0.01f, ki = 3.0f;
  auto clamp = gains(0.0f, ki, 0.0f, h);
  clamp.anti_windup = claw::AntiWindup::IntegralClamp;
  clamp.integral_max << 0.05f;
  auto iterm = gains(0.0f, ki, 0.0f, h);
  iterm.anti_windup = claw::AntiWindup::ITermClamp;
  iterm.iterm_min << -0.1f;
  iterm.iterm_max << 0.2f;
  Pid1f a, b;
  test.check(a.configure(clamp) == Status::Ok && b.configure(iterm) == Status::Ok, "configure");
  F1 u(0.0f);
  for (int k = 0; k < 200; ++k) {
    const float target = k < 100 ? 1.0f : -1.0f;
    test.check(a.update(F1(target), F1(0.0f), F1(0.0f), u) == Status::Ok, "a step %d", k);
    test.check(std::fabs(a.integral_term()(0)) <= ki * 0.05f, "a step %d: I %.9g", k,
               double(a.integral_term()(0)));
    test.check(b.update(F1(target), F1(0.0f), F1(0.0f), u) == Status::Ok, "b step %d", k);
    test.check(b.integral_term()(0) <= 0.2f && b.integral_term()(0) >= -0.1f, "b step %d: I %.9g",
               k, double(b.integral_term()(0)));
  }
  test.check(a.integral_term()(0) == -(ki * 0.05f), "a: %.9g", double(a.integral_term()(0)));
  test.check(b.integral_term()(0) == -0.1f, "b: %.9g", double(b.integral_term()(0)));
}

// Back-calculation in saturation: I_k = I* + (I0 - I*) (1 - h/Tt)^k. The float recursion rounds
// each step (relative error <= 4 u, u = 2^-24) and the contraction 1 - h/Tt = 0.96 keeps the
// accumulated error below 4 u |I| / (h/Tt) = 100 u |I| ~ 6e-6 |I|; tolerance 2e-5 relative.
void back_calculation_decay() {
  Test test("closed form: back-calculation decays with time constant Tt (float)");
  const float h = 0.01f, ki = 2.0f, limit = 1.0f, tt = 0.25f, e = 0.5f;
  auto s = gains(0.0f, ki, 0.0f, h);
  s.anti_windup = claw::AntiWindup::BackCalculation;
  s.tracking_time << tt;
  s.integral_rule = claw::IntegralRule::ForwardEuler;
  s.limits.kind = claw::EffortLimitKind::Bounds;
  s.limits.lower << -limit;
  s.limits.upper << limit;
  Pid1f pid;
  test.check(pid.configure(s) == Status::Ok, "configure");
  const float i0 = 5.0f;
  test.check(pid.set_integral_term(F1(i0)) == Status::Ok, "set_integral_term");
  const double fixed_point = double(limit) + double(tt) * double(ki) * double(e);
  F1 u(0.0f);
  for (int k = 1; k <= 300 && !test.failed(); ++k) {
    test.check(pid.update(F1(e), F1(0.0f), F1(0.0f), u) == Status::Ok, "step %d", k);
    test.check(u(0) == limit, "step %d: u %.9g", k, double(u(0)));
    const double expected =
        fixed_point + (double(i0) - fixed_point) * std::pow(1.0 - double(h) / double(tt), k);
    const double actual = double(pid.integral_term()(0));
    test.check(std::fabs(actual - expected) <= 2e-5 * std::fabs(expected), "step %d: %.9g != %.9g",
               k, actual, expected);
  }
}

// Stable PD on a unit mass at kp h^2 = 100 (explicit semi-implicit Euler needs kp h^2 < 4):
// implicit Euler v+ = (v - h kp q) / (1 + h^2 kp), q+ = q + h v+ is a contraction (its eigenvalues
// have modulus 1 / sqrt(1 + kp h^2) ~ 0.1), so |q| stays <= 1 and the rounding of each float step
// (a few u = 2^-24) is damped instead of accumulated: the float run tracks the double recursion
// within 1e-5 (1e-7 measured). Explicit PD with the same gain passes 1e10 within 500 steps.
void stable_pd_bounded() {
  Test test("closed form: stable PD bounded at kp h^2 = 100, explicit PD diverges (float)");
  const float h = 0.01f, kp = 100.0f / (h * h);
  claw::StablePd<float, 1> stable;
  auto settings = stable.settings();
  settings.kp << kp;
  settings.kd << 0.0f;
  settings.dt = h;
  test.check(stable.configure(settings) == Status::Ok, "configure");
  float q = 1.0f, v = 0.0f;
  double q_ref = 1.0, v_ref = 0.0;
  F1 tau(0.0f);
  for (int k = 0; k < 500 && !test.failed(); ++k) {
    test.check(
        stable.update(F1(0.0f), F1(0.0f), F1(0.0f), F1(q), F1(v), F1(1.0f), tau) == Status::Ok,
        "step %d", k);
    v += h * tau(0);
    q += h * v;
    v_ref = (v_ref - double(h) * double(kp) * q_ref) / (1.0 + double(h) * double(h) * double(kp));
    q_ref = q_ref + double(h) * v_ref;
    test.check(std::fabs(double(q) - q_ref) <= 1e-5, "step %d: q %.9g, implicit Euler %.9g", k,
               double(q), q_ref);
    test.check(std::fabs(q) <= 1.0f, "step %d: |q| = %.9g > 1", k, double(q));
  }
  Pid1f explicit_pd;
  test.check(explicit_pd.configure(gains(kp, 0.0f, 0.0f, h)) == Status::Ok, "configure explicit");
  float qe = 1.0f, ve = 0.0f;
  F1 u(0.0f);
  for (int k = 0; k < 500 && std::fabs(qe) <= 1e10f; ++k) {
    test.check(explicit_pd.update(F1(0.0f), F1(qe), F1(ve), u) == Status::Ok, "explicit step %d",
               k);
    ve += h * u(0);
    qe += h * ve;
  }
  test.check(std::fabs(qe) > 1e10f, "explicit PD stayed at %.9g", double(qe));
}

}  // namespace

void run_closed_form() {
  begin_suite("closed-form laws, float");
  zoh_constant_acceleration();
  gravity_steady_state();
  slew_ramp();
  anti_windup_clamps();
  back_calculation_decay();
  stable_pd_bounded();
}

}  // namespace claw_mcu
