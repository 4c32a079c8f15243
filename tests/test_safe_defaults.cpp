// tests/test_safe_defaults.cpp: the contracts a new user relies on without reading every header:
// limits cannot be half set, an unset limit means none, hot calls refuse wrong sizes in every build
// (SizeMismatch, nothing touched), free functions validate like the classes, asserts say where.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "claw/blocks/pd_adapter.hpp"
#include "claw/blocks/pd_controller.hpp"
#include "claw/core/time_step.hpp"
#include "claw/filters/fliqc.hpp"
#include "claw/integrators/zoh.hpp"
#include "claw/laws/pd.hpp"
#include "claw/laws/pid.hpp"
#include "claw/laws/slew_limiter.hpp"
#include "claw/laws/stable_pd.hpp"
#include "claw/laws/velocity_servo.hpp"
#include "support/infinity.hpp"

#if defined(__unix__)
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <string>
#endif

using claw::Status;

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
using V2 = Eigen::Vector2d;
using V3 = Eigen::Vector3d;
using Limits2 = claw::EffortLimits<double, 2>;
using LimitsX = claw::EffortLimits<double, claw::Dynamic>;

/// A two-joint PID with kp = 1000 and the given limits (dt 1 ms).
claw::PidSettings<double, 2> stiff(const Limits2& limits) {
  claw::PidSettings<double, 2> s;
  s.kp.setConstant(1000.0);
  s.limits = limits;
  return s;
}
}  // namespace

TEST_CASE("Effort limits cannot be half set: finite fields the kind ignores are refused",
          "[safe_defaults][effort_clamp]") {
  claw::Pid<double, 2> pid;
  const auto before = pid.settings().kp;

  Limits2 half;  // kind left at None, bounds filled in
  half.lower.setConstant(-5.0);
  half.upper.setConstant(5.0);
  CHECK(claw::validate_effort_limits(half, 2) == Status::InvalidParameter);
  CHECK(pid.configure(stiff(half)) == Status::InvalidParameter);
  CHECK(pid.settings().kp == before);  // old settings kept

  Limits2 bounds_with_motor = Limits2::symmetric(5.0);
  bounds_with_motor.stall_effort.setConstant(3.0);  // read only by DcMotor
  CHECK(claw::validate_effort_limits(bounds_with_motor, 2) == Status::InvalidParameter);

  Limits2 motor_with_bounds = Limits2::dc_motor(3.0, 4.0, 10.0);
  motor_with_bounds.upper.setConstant(2.0);  // read only by Bounds
  CHECK(claw::validate_effort_limits(motor_with_bounds, 2) == Status::InvalidParameter);

  // Bounds that would clamp to an infinity are no limit on effort: refused.
  Limits2 upside_down = Limits2::bounds(claw::infinity<double>(), claw::infinity<double>());
  CHECK(claw::validate_effort_limits(upside_down, 2) == Status::InvalidParameter);
  upside_down = Limits2::bounds(-claw::infinity<double>(), -claw::infinity<double>());
  CHECK(claw::validate_effort_limits(upside_down, 2) == Status::InvalidParameter);
  // NaN in a field the kind ignores is not "unset".
  Limits2 nan_field = Limits2::symmetric(5.0);
  nan_field.stall_effort(1) = std::numeric_limits<double>::quiet_NaN();
  CHECK(claw::validate_effort_limits(nan_field, 2) == Status::InvalidParameter);

  // Infinite fields are "not set": kind None with the defaults, or with explicit infinities.
  CHECK(claw::validate_effort_limits(Limits2{}, 2) == Status::Ok);
  CHECK(claw::validate_effort_limits(Limits2::none(), 2) == Status::Ok);
  CHECK(claw::validate_effort_limits(LimitsX::none(3), 3) == Status::Ok);
}

TEST_CASE("Effort-limit factories apply what they name", "[safe_defaults][effort_clamp]") {
  // e = 1, kp = 1000: the unclipped effort is 1000 on both joints.
  const V2 target(1.0, -1.0), q = V2::Zero(), v = V2::Zero();
  V2 out;
  {
    claw::Pid<double, 2> pid;
    REQUIRE(pid.configure(stiff(Limits2::symmetric(5.0))) == Status::Ok);
    REQUIRE(pid.update(target, q, v, out) == Status::Ok);
    CHECK(out(0) == 5.0);
    CHECK(out(1) == -5.0);
  }
  {
    claw::Pid<double, 2> pid;
    REQUIRE(pid.configure(stiff(Limits2::bounds(-2.0, 7.0))) == Status::Ok);
    REQUIRE(pid.update(target, q, v, out) == Status::Ok);
    CHECK(out(0) == 7.0);
    CHECK(out(1) == -2.0);
  }
  {
    // At v = 0 the DC-motor envelope is [-min(tsat, tmax), min(tsat, tmax)] = [-3, 3].
    claw::Pid<double, 2> pid;
    REQUIRE(pid.configure(stiff(Limits2::dc_motor(3.0, 4.0, 10.0))) == Status::Ok);
    REQUIRE(pid.update(target, q, v, out) == Status::Ok);
    CHECK(out(0) == 3.0);
    CHECK(out(1) == -3.0);
  }
  {
    claw::Pid<double, 2> pid;
    REQUIRE(pid.configure(stiff(Limits2::none())) == Status::Ok);
    REQUIRE(pid.update(target, q, v, out) == Status::Ok);
    CHECK(out(0) == 1000.0);
    CHECK(out(1) == -1000.0);
  }
  // Dynamic sizes take the joint count.
  const LimitsX dynamic = LimitsX::symmetric(5.0, 3);
  CHECK(dynamic.kind == claw::EffortLimitKind::Bounds);
  CHECK(dynamic.upper.size() == 3);
  CHECK(dynamic.lower.minCoeff() == -5.0);
  CHECK(claw::validate_effort_limits(dynamic, 3) == Status::Ok);
  CHECK(claw::validate_effort_limits(dynamic, 2) == Status::SizeMismatch);
}

TEST_CASE("PdController's default effort limit is none: the PD effort passes", "[safe_defaults]") {
  claw::PdController<double, 2> pd;
  auto s = pd.settings();
  CHECK(std::isinf(s.effort_limit(0)));
  s.kp.setConstant(100.0);
  s.kd.setConstant(0.01);
  REQUIRE(pd.configure(s) == Status::Ok);  // effort_limit left at its default
  Eigen::Matrix<double, 3, 2> state;
  state << 1.0, -2.0,  //
      0.5, 0.0,        //
      0.0, 0.0;
  REQUIRE(pd.set_command_state(state) == Status::Ok);
  V2 out;
  REQUIRE(pd.compute_effort(V2::Zero(), V2::Zero(), out) == Status::Ok);
  // tau = kp ((p* - q) + kd (v* - v))
  CHECK(out(0) == Approx(100.0 * (1.0 + 0.01 * 0.5)).epsilon(1e-15));
  CHECK(out(1) == Approx(-200.0).epsilon(1e-15));
}

TEST_CASE("Hot calls refuse a wrong size in every build: SizeMismatch, nothing touched",
          "[safe_defaults][sizes]") {
  const V3 three = V3::Ones();
  const V2 two = V2::Ones();
  V2 out(7.0, 8.0);
  const V2 out_before = out;

  SECTION("Pid, and a Pid of size 0") {
    claw::Pid<double, claw::Dynamic> pid(2);
    auto s = pid.settings();
    s.kp.setConstant(10.0);
    s.ki.setConstant(1.0);
    REQUIRE(pid.configure(s) == Status::Ok);
    CHECK(pid.update(three, two, two, out) == Status::SizeMismatch);
    CHECK(pid.update(two, two, two, two, two, three.head<1>().eval()) == Status::SizeMismatch);
    CHECK(pid.reset(three, two) == Status::SizeMismatch);
    CHECK(pid.set_integral_term(2, 1.0) == Status::SizeMismatch);
    CHECK(pid.set_integral_term(-1, 1.0) == Status::SizeMismatch);
    CHECK(out == out_before);
    CHECK(pid.integral_term().isZero());
    claw::Pid<double, claw::Dynamic> empty;
    Eigen::VectorXd none(0);
    CHECK(empty.update(none, none, none, none) == Status::SizeMismatch);
    CHECK(empty.configure(empty.settings()) == Status::SizeMismatch);
    CHECK(empty.set_gains(none, none, none) == Status::SizeMismatch);
    CHECK(empty.reset(none, none) == Status::SizeMismatch);
    CHECK(empty.set_integral_term(none) == Status::SizeMismatch);
  }
  SECTION("pd_effort and clamp_effort") {
    const V2 kp(1.0, 1.0), kd(0.1, 0.1);
    CHECK(claw::pd_effort(three, two, two, two, kp, kd, claw::PdForm::Parallel, Limits2::none(),
                          out) == Status::SizeMismatch);
    CHECK(claw::pd_effort(two, two, two, two, kp, kd, claw::PdForm::Parallel,
                          LimitsX::symmetric(1.0, 3), out) == Status::SizeMismatch);
    CHECK(claw::clamp_effort(Limits2::symmetric(1.0), out, three) == Status::SizeMismatch);
    CHECK(out == out_before);
  }
  SECTION("StablePd, SlewLimiter, VelocityServo") {
    claw::StablePd<double, claw::Dynamic> spd(2);
    CHECK(spd.update(two, two, two, two, two, three, out) == Status::SizeMismatch);
    CHECK(spd.update_full(two, two, two, two, two, Eigen::Matrix3d::Identity(), out) ==
          Status::SizeMismatch);
    claw::SlewLimiter<double, claw::Dynamic> slew(2);
    CHECK(slew.update(three, two, 0.01, out) == Status::SizeMismatch);
    claw::VelocityServo<double, claw::Dynamic> servo(2);
    V2 limit(5.0, 6.0);
    CHECK(servo.update(three, out, limit) == Status::SizeMismatch);
    CHECK(limit == V2(5.0, 6.0));
    CHECK(out == out_before);
  }
  SECTION("PdController, pd_controller, PdAdapter, pd_adapter, integrate_zoh") {
    claw::PdController<double, claw::Dynamic> pd(2);
    const auto state_before = pd.command_state();
    CHECK(pd.update(two, two, three, out) == Status::SizeMismatch);
    CHECK(pd.reset(three, two, out) == Status::SizeMismatch);
    CHECK(pd.compute_effort(two, three, out) == Status::SizeMismatch);
    CHECK(pd.command_state() == state_before);
    claw::PdAdapter<double, claw::Dynamic> adapter(2);
    CHECK(adapter.update(three, pd, out) == Status::SizeMismatch);
    claw::PdController<double, claw::Dynamic> empty;
    Eigen::VectorXd none(0);
    CHECK(empty.update(none, none, none, none) == Status::SizeMismatch);
    CHECK(out == out_before);
    // A FLIQC filter never given its joints (N dynamic, no set_num_joints) refuses every cycle,
    // also one whose inputs are all empty, with a zero command.
    claw::FliqcFilter<double, claw::Dynamic, 7, 4> no_joints;
    const Eigen::MatrixXd no_jacobian(3, 0), no_rows(0, 0);
    const auto& cycle = no_joints.filter(none, no_jacobian, none, no_rows);
    CHECK(cycle.status == Status::SizeMismatch);
    CHECK(cycle.qdot.size() == 0);

    Eigen::Matrix<double, 3, 2> state = Eigen::Matrix<double, 3, 2>::Zero();
    Eigen::Matrix<double, 3, 2> lower = Eigen::Matrix<double, 3, 2>::Constant(-1.0);
    Eigen::Matrix<double, 3, 2> upper = Eigen::Matrix<double, 3, 2>::Constant(1.0);
    const Eigen::Matrix<double, 3, 3> wide = Eigen::Matrix<double, 3, 3>::Constant(1.0);
    CHECK(claw::integrate_zoh(state, lower, wide, 0.01) == Status::SizeMismatch);
    CHECK(claw::pd_controller(two, three, state, lower, upper, two, two, two, 0.01, out) ==
          Status::SizeMismatch);
    CHECK(claw::pd_adapter(three, claw::PdActionOrder::Velocity, state, lower, upper, false,
                           Eigen::VectorXd(0), 0.04, out) == Status::SizeMismatch);
    CHECK(state.isZero());
    CHECK(out == out_before);
  }
}

TEST_CASE("Free functions validate bounds and NaN like the classes", "[safe_defaults]") {
  const V2 q = V2::Zero(), v = V2::Zero(), kp(10.0, 10.0), kd(0.0, 0.0);
  V2 out(7.0, 8.0);
  const V2 out_before = out;
  const Limits2 reversed = Limits2::bounds(5.0, -5.0);
  CHECK(claw::validate_effort_limits(reversed, 2) == Status::InvalidParameter);
  CHECK(claw::pd_effort(V2::Ones(), V2::Zero(), q, v, kp, kd, claw::PdForm::Parallel, reversed,
                        out) == Status::InvalidParameter);
  V2 u(3.0, -9.0);
  CHECK(claw::clamp_effort(reversed, u, v) == Status::InvalidParameter);
  CHECK(u == V2(3.0, -9.0));
  V2 with_nan(kNaN, 1.0);
  CHECK(claw::clamp_effort(Limits2::symmetric(1.0), with_nan, v) == Status::NonFiniteInput);
  CHECK(std::isnan(with_nan(0)));
  CHECK(with_nan(1) == 1.0);  // untouched although outside the bounds
  CHECK(claw::clamp_effort(Limits2::symmetric(1.0), u, V2(0.0, kInf)) == Status::NonFiniteInput);
  REQUIRE(claw::clamp_effort(Limits2::symmetric(1.0), u, v) == Status::Ok);
  CHECK(u == V2(1.0, -1.0));
  CHECK(out == out_before);

  // A non-finite state is refused even when the step is too short to take.
  {
    Eigen::Matrix<double, 3, 2> nan_state = Eigen::Matrix<double, 3, 2>::Zero();
    nan_state(1, 0) = std::numeric_limits<double>::quiet_NaN();
    const Eigen::Matrix<double, 3, 2> open_lower = Eigen::Matrix<double, 3, 2>::Constant(-kInf);
    const Eigen::Matrix<double, 3, 2> open_upper = Eigen::Matrix<double, 3, 2>::Constant(kInf);
    CHECK(claw::integrate_zoh(nan_state, open_lower, open_upper, 0.0) == Status::NonFiniteInput);
    CHECK(claw::integrate_zoh(nan_state, open_lower, open_upper, 1e-12) == Status::NonFiniteInput);
  }
  // integrate_zoh refuses lower > upper in the jiminy-compatible mode as in the viable one.
  Eigen::Matrix<double, 3, 2> state = Eigen::Matrix<double, 3, 2>::Zero();
  Eigen::Matrix<double, 3, 2> lower = Eigen::Matrix<double, 3, 2>::Constant(-1.0);
  Eigen::Matrix<double, 3, 2> upper = Eigen::Matrix<double, 3, 2>::Constant(1.0);
  lower(claw::kPosition, 1) = 2.0;
  for (const auto mode : {claw::ZohMode::JiminyCompatible, claw::ZohMode::Viable})
    CHECK(claw::integrate_zoh(state, lower, upper, 0.01, mode) == Status::InvalidBounds);
  CHECK(state.isZero());
  // pd_adapter refuses a velocity or acceleration lower bound above its upper one, touching
  // nothing (the position row is not read by the law).
  lower(claw::kPosition, 1) = -1.0;
  for (const int row : {claw::kVelocity, claw::kAcceleration}) {
    Eigen::Matrix<double, 3, 2> crossed = lower;
    crossed(row, 0) = 2.0;
    CHECK(claw::pd_adapter(V2(0.5, 0.5), claw::PdActionOrder::Velocity, state, crossed, upper,
                           false, Eigen::VectorXd(0), 0.04, out) == Status::InvalidBounds);
  }
  CHECK(state.isZero());
  CHECK(out == out_before);
}

TEST_CASE("Time steps follow one contract: in a call, and in settings",
          "[safe_defaults][time_step]") {
  // A call's step: NaN/Inf -> NonFiniteInput, < 0 -> NegativeTimeStep (nothing touched either way),
  // [0, 1e-9) -> Ok with nothing advanced, >= 1e-9 -> Ok and the step taken.
  const double steps[] = {kNaN, kInf, -kInf, -1e-3, 0.0, 1e-12, 1e-3};
  const auto expected = [](double dt) {
    if (!std::isfinite(dt)) return Status::NonFiniteInput;
    return dt < 0.0 ? Status::NegativeTimeStep : Status::Ok;
  };
  Eigen::Matrix<double, 3, 2> lower = Eigen::Matrix<double, 3, 2>::Constant(-10.0);
  Eigen::Matrix<double, 3, 2> upper = Eigen::Matrix<double, 3, 2>::Constant(10.0);
  Eigen::Matrix<double, 3, 2> start;
  start << 0.0, 1.0,  //
      0.5, -0.5,      //
      2.0, 1.0;
  for (const double dt : steps) {
    INFO("dt " << dt);
    const bool advances = std::isfinite(dt) && dt >= CLAW_MIN_TIME_STEP;
    for (const auto mode : {claw::ZohMode::JiminyCompatible, claw::ZohMode::Viable}) {
      auto state = start;
      CHECK(claw::integrate_zoh(state, lower, upper, dt, mode) == expected(dt));
      CHECK((state != start) == advances);
    }
    {
      auto state = start;
      V2 out(7.0, 8.0);
      const Status status =
          claw::pd_controller(V2::Zero(), V2::Zero(), state, lower, upper, V2(10.0, 10.0),
                              V2::Zero(), V2(kInf, kInf), dt, out);
      CHECK(status == expected(dt));
      CHECK((state != start) == advances);
      // The effort is computed whenever the call is accepted: kp (p* - q) from the (new) state.
      if (status == Status::Ok) CHECK(out == 10.0 * state.row(claw::kPosition).transpose());
      if (status != Status::Ok) CHECK(out == V2(7.0, 8.0));
    }
    {
      claw::SlewLimiter<double, 2> slew;
      REQUIRE(slew.configure(V2(1.0, 1.0), claw::SlewStart::FromMeasurement) == Status::Ok);
      V2 out(7.0, 8.0);
      CHECK(slew.update(V2(5.0, -5.0), V2::Zero(), dt, out) == expected(dt));
      // One step of 1e-3 at 1 pos/s from the measurement 0; a step too short to take gives the
      // held value (a step of length 0 from the measurement: 0); a refused one leaves out alone.
      const bool accepted = expected(dt) == Status::Ok;
      CHECK(out == (advances ? V2(1e-3, -1e-3) : (accepted ? V2(0.0, 0.0) : V2(7.0, 8.0))));
      CHECK(slew.limited() == (advances ? V2(1e-3, -1e-3) : V2::Zero()));
    }
  }
  // pd_adapter, the gym_jiminy drop-in, is the one exception: a negative step_dt is used as given.
  {
    Eigen::Matrix<double, 3, 2> state = start;
    V2 out(7.0, 8.0);
    CHECK(claw::pd_adapter(V2(1.0, 1.0), claw::PdActionOrder::Velocity, state, lower, upper, false,
                           Eigen::VectorXd(0), -0.04, out) == Status::Ok);
    CHECK(out != V2(7.0, 8.0));
  }

  // A step in settings: finite and >= 1e-9, else InvalidParameter (the old settings kept).
  const double settings_steps[] = {kNaN, kInf, -1e-3, 0.0, 1e-12, 1e-3};
  for (const double dt : settings_steps) {
    INFO("settings dt " << dt);
    const Status want = claw::valid_time_step_setting(dt) ? Status::Ok : Status::InvalidParameter;
    CHECK(claw::valid_time_step_setting(dt) == (dt == 1e-3));
    // object's default settings with the step field `step` set to dt, then configure().
    const auto configure_with = [dt](auto object, auto step) {
      auto settings = object.settings();
      settings.*step = dt;
      return object.configure(settings);
    };
    using PidSettings = claw::Pid<double, 2>::Settings;
    using StablePdSettings = claw::StablePd<double, 2>::Settings;
    using ServoSettings = claw::VelocityServo<double, 2>::Settings;
    using PdSettings = claw::PdController<double, 2>::Settings;
    using AdapterSettings = claw::PdAdapter<double, 2>::Settings;
    CHECK(configure_with(claw::Pid<double, 2>{}, &PidSettings::dt) == want);
    CHECK(configure_with(claw::StablePd<double, 2>{}, &StablePdSettings::dt) == want);
    CHECK(configure_with(claw::VelocityServo<double, 2>{}, &ServoSettings::dt) == want);
    CHECK(configure_with(claw::PdController<double, 2>{}, &PdSettings::control_dt) == want);
    CHECK(configure_with(claw::PdAdapter<double, 2>{}, &AdapterSettings::step_dt) == want);
    claw::FliqcSettings<double> fliqc;
    fliqc.dt = dt;
    CHECK(fliqc.validate() == want);
  }
}

#if defined(__unix__)
TEST_CASE("The default assert handler names the expression, the file and the line",
          "[safe_defaults][assert]") {
  int pipe_fds[2];
  REQUIRE(pipe(pipe_fds) == 0);
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // The child reports on the pipe as its stderr, then aborts in the default handler (the test
    // framework's signal handler is taken out so that only the abort remains).
    std::signal(SIGABRT, SIG_DFL);
    dup2(pipe_fds[1], 2);
    close(pipe_fds[0]);
    claw::set_assert_handler(nullptr);
    claw::detail::assertion_failed("n == 3", "sizes must agree", "some_file.hpp", 42);
  }
  close(pipe_fds[1]);
  std::string report;
  char buffer[256];
  for (ssize_t got; (got = read(pipe_fds[0], buffer, sizeof buffer)) > 0;)
    report.append(buffer, static_cast<std::size_t>(got));
  close(pipe_fds[0]);
  int wait_status = 0;
  REQUIRE(waitpid(child, &wait_status, 0) == child);
  CHECK(WIFSIGNALED(wait_status));
  CHECK(WTERMSIG(wait_status) == SIGABRT);
  INFO(report);
  CHECK(report.find("some_file.hpp:42") != std::string::npos);
  CHECK(report.find("n == 3") != std::string::npos);
  CHECK(report.find("sizes must agree") != std::string::npos);
}
#endif
