// tests/fuzz/fuzz_pid.cpp: libFuzzer target for Pid (claw/laws/pid.hpp) with random PidSettings
// (every anti-windup, derivative source, integral rule, effort-limit kind, slew start, wrap,
// ranges) and random call sequences: refused calls touch nothing, finite in -> finite out, effort
// limits, clamps, slew limit.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "claw/laws/pid.hpp"
#include "fuzz/fuzz_input.hpp"

namespace {

using claw::AntiWindup;
using claw::EffortLimitKind;
using claw::Status;
using claw_fuzz::FuzzInput;

constexpr int kMaxJoints = 8;

/// A settings value: mostly sensible (non-negative, finite), sometimes anything.
template <typename Scalar>
Scalar setting(FuzzInput& in, bool raw) {
  if (raw) return in.value<Scalar>();
  const Scalar x = std::fabs(in.value<Scalar>());
  return std::isnan(x) ? Scalar(0) : x;
}

template <typename Scalar>
void run(FuzzInput& in) {
  using Law = claw::Pid<Scalar, claw::Dynamic, kMaxJoints>;
  using Vec = typename Law::VectorType;
  using Settings = typename Law::Settings;
  const int n = in.integer(1, kMaxJoints);
  Law pid(n);

  auto random_settings = [&]() {
    Settings s = pid.settings();
    const bool raw = in.byte() % 8 == 0;
    for (Eigen::Index j = 0; j < n; ++j) {
      s.kp(j) = setting<Scalar>(in, raw);
      s.ki(j) = setting<Scalar>(in, raw);
      s.kd(j) = setting<Scalar>(in, raw);
      s.constant_effort(j) = raw ? in.value<Scalar>() : in.finite<Scalar>();
      s.derivative_filter(j) = in.boolean() ? setting<Scalar>(in, raw) : Scalar(0);
      s.error_deadband(j) = in.byte() % 4 == 0 ? setting<Scalar>(in, raw) : Scalar(0);
      s.integral_max(j) = setting<Scalar>(in, raw);
      s.iterm_min(j) = raw ? in.value<Scalar>() : -setting<Scalar>(in, false);
      s.iterm_max(j) = raw ? in.value<Scalar>() : setting<Scalar>(in, false);
      s.tracking_time(j) = in.boolean() ? setting<Scalar>(in, raw) : Scalar(0);
      s.slew_rate(j) = in.boolean() ? setting<Scalar>(in, raw) : claw::infinity<Scalar>();
      s.wrap_period(j) = in.byte() % 4 == 0 ? setting<Scalar>(in, raw) : Scalar(0);
      for (auto pair : {std::make_pair(&s.target_min, &s.target_max),
                        std::make_pair(&s.target_velocity_min, &s.target_velocity_max),
                        std::make_pair(&s.feedforward_min, &s.feedforward_max)}) {
        if (in.byte() % 4 == 0) {
          (*pair.first)(j) = raw ? in.value<Scalar>() : -setting<Scalar>(in, false);
          (*pair.second)(j) = raw ? in.value<Scalar>() : setting<Scalar>(in, false);
        } else {
          (*pair.first)(j) = -claw::infinity<Scalar>();
          (*pair.second)(j) = claw::infinity<Scalar>();
        }
      }
      s.limits.lower(j) = raw ? in.value<Scalar>() : -setting<Scalar>(in, false);
      s.limits.upper(j) = raw ? in.value<Scalar>() : setting<Scalar>(in, false);
      s.limits.stall_effort(j) = setting<Scalar>(in, raw);
      s.limits.peak_effort(j) = setting<Scalar>(in, raw);
      s.limits.no_load_speed(j) = setting<Scalar>(in, raw);
    }
    s.derivative = in.choice<claw::DerivativeSource>(3);
    s.derivative_from_zero_error = in.boolean();
    s.integral_rule = in.choice<claw::IntegralRule>(2);
    s.anti_windup = in.choice<AntiWindup>(7);
    s.proportional_on_measurement = in.boolean();
    s.limits.kind = in.choice<EffortLimitKind>(3);
    // A kind reads only its own fields and refuses finite values in the others; outside the raw
    // mode (which exercises every refusal) those are unset, so that valid settings stay common.
    if (!raw) claw_fuzz::unset_unread_limit_fields(s.limits);
    s.slew_start = in.choice<claw::SlewStart>(3);
    s.dt = in.boolean() ? in.value<Scalar>() : Scalar(1e-3);
    s.signed_gains = in.boolean();
    if (s.signed_gains)  // some gains negative (Drake's signs, Arduino's REVERSE)
      for (Eigen::Index j = 0; j < n; ++j)
        for (Vec* gain : {&s.kp, &s.ki, &s.kd})
          if (in.boolean()) (*gain)(j) = -(*gain)(j);
    return s;
  };

  bool first = true;  // the next update is a first step (no slew history)
  Eigen::Array<bool, Eigen::Dynamic, 1> restarted =
      Eigen::Array<bool, Eigen::Dynamic, 1>::Constant(n, false);
  auto configure = [&]() {
    const Settings s = random_settings();
    const Settings old = pid.settings();
    const Status status = pid.configure(s);
    CLAW_FUZZ_CHECK(status == s.validate(n), "configure: status differs from validate()");
    if (status != Status::Ok)
      CLAW_FUZZ_CHECK(claw_fuzz::same_bits(pid.settings().kp, old.kp) &&
                          claw_fuzz::same_scalar_bits(pid.settings().dt, old.dt) &&
                          pid.settings().anti_windup == old.anti_windup,
                      "configure: refused settings installed");
  };
  configure();

  Vec target(n), target_velocity(n), feedforward(n), q(n), v(n), out(n);
  out.setZero();
  typename Law::State snapshot;  // op 6
  bool have_snapshot = false;
  const int steps = in.integer(1, 48);
  for (int k = 0; k < steps; ++k) {
    const int op = in.integer(0, 12);
    if (op == 0) {
      configure();
      continue;
    }
    if (op == 1) {
      pid.reset();
      first = true;
      continue;
    }
    if (op == 2) {
      Vec measurement(n), output(n);
      claw_fuzz::fill_values(in, measurement);
      claw_fuzz::fill_values(in, output);
      const Vec integral_before = pid.integral_term();
      const Status status = pid.reset(measurement, output);
      const bool finite = claw_fuzz::finite(measurement) && claw_fuzz::finite(output);
      const bool overflows =
          finite && !claw_fuzz::finite((output - pid.settings().constant_effort).eval());
      const Status expected =
          !finite ? Status::NonFiniteInput : (overflows ? Status::NumericalOverflow : Status::Ok);
      CLAW_FUZZ_CHECK(status == expected, "reset(q, u): status");
      if (status != Status::Ok)
        CLAW_FUZZ_CHECK(claw_fuzz::same_bits(pid.integral_term(), integral_before),
                        "refused reset touched I");
      else
        first = true;
      continue;
    }
    if (op == 3) {
      Vec kp(n), ki(n), kd(n);
      for (Eigen::Index j = 0; j < n; ++j) {
        kp(j) = in.value<Scalar>();
        ki(j) = in.value<Scalar>();
        kd(j) = in.value<Scalar>();
      }
      const Vec kp_old = pid.settings().kp;
      const Status status = pid.set_gains(kp, ki, kd);
      bool valid = true;
      for (Eigen::Index j = 0; j < n; ++j)
        for (Scalar g : {kp(j), ki(j), kd(j)})
          valid = valid && std::isfinite(g) && (g >= 0 || pid.settings().signed_gains);
      // Under IntegralClamp the new ki must leave [iterm_min, iterm_max] meeting
      // [-|ki| z_max, |ki| z_max] (z_max = +inf: no clamp, also for ki = 0).
      if (pid.settings().anti_windup == AntiWindup::IntegralClamp)
        for (Eigen::Index j = 0; j < n; ++j) {
          const Scalar z_max = pid.settings().integral_max(j);
          const Scalar bound = std::isinf(z_max) ? z_max : std::fabs(ki(j)) * z_max;
          valid = valid && !(pid.settings().iterm_min(j) > bound) &&
                  !(pid.settings().iterm_max(j) < -bound);
        }
      CLAW_FUZZ_CHECK((status == Status::Ok) == valid, "set_gains: status");
      if (status != Status::Ok)
        CLAW_FUZZ_CHECK(claw_fuzz::same_bits(pid.settings().kp, kp_old), "refused gains installed");
      continue;
    }
    if (op == 4) {
      Vec integral(n);
      claw_fuzz::fill_values(in, integral);
      const Vec before = pid.integral_term();
      const Status status = pid.set_integral_term(integral);
      CLAW_FUZZ_CHECK((status == Status::Ok) == claw_fuzz::finite(integral),
                      "set_integral_term: status");
      if (status != Status::Ok)
        CLAW_FUZZ_CHECK(claw_fuzz::same_bits(pid.integral_term(), before), "touched");
      continue;
    }
    if (op == 5) {
      // Restart some joints (a mask, or a range that may lie outside): the others untouched.
      Eigen::Array<bool, Eigen::Dynamic, 1> selected(n);
      for (Eigen::Index j = 0; j < n; ++j) selected(j) = in.boolean();
      const Vec before = pid.integral_term();
      Status status;
      if (in.boolean()) {
        status = pid.reset_joints(selected);
      } else {
        const Eigen::Index begin = in.integer(-1, int(n)), count = in.integer(-1, int(n));
        status = pid.reset_joints(begin, count);
        const bool inside = begin >= 0 && count >= 0 && begin + count <= n;
        CLAW_FUZZ_CHECK((status == Status::Ok) == inside, "reset_joints(range): status");
        for (Eigen::Index j = 0; j < n; ++j)
          selected(j) = inside && j >= begin && j < begin + count;
      }
      for (Eigen::Index j = 0; j < n; ++j) restarted(j) = restarted(j) || selected(j);
      for (Eigen::Index j = 0; j < n; ++j)
        if (!selected(j))
          CLAW_FUZZ_CHECK(
              claw_fuzz::same_bits(pid.integral_term().segment(j, 1), before.segment(j, 1)),
              "reset_joints touched a joint that was not selected");
      continue;
    }
    if (op == 6) {
      // Snapshots: take one, or restore the one held (perhaps with one scalar replaced by any
      // value). NonFiniteInput exactly for NaN/Inf; Ok installs it bit for bit, with I within
      // [iterm_min, iterm_max]; a refusal touches nothing.
      if (!have_snapshot || in.boolean()) {
        snapshot = pid.state();
        have_snapshot = true;
        continue;
      }
      typename Law::State candidate = snapshot;
      if (in.boolean()) {
        const Eigen::Index j = in.integer(0, int(n) - 1);
        (in.boolean() ? candidate.integral : candidate.previous_error)(j) = in.value<Scalar>();
      }
      const bool finite_candidate =
          claw_fuzz::finite(candidate.integral) && claw_fuzz::finite(candidate.previous_error);
      const Vec integral_before = pid.integral_term();
      const Status status = pid.set_state(candidate);
      CLAW_FUZZ_CHECK((status == Status::NonFiniteInput) == !finite_candidate,
                      "set_state: NonFiniteInput exactly for NaN/Inf");
      CLAW_FUZZ_CHECK(status == Status::Ok || status == Status::NonFiniteInput ||
                          status == Status::InvalidParameter,
                      "set_state: status");
      if (status != Status::Ok) {
        CLAW_FUZZ_CHECK(claw_fuzz::same_bits(pid.integral_term(), integral_before),
                        "a refused snapshot touched I");
        continue;
      }
      CLAW_FUZZ_CHECK(
          claw_fuzz::same_bits(pid.integral_term(), candidate.integral) &&
              claw_fuzz::same_bits(pid.state().previous_error, candidate.previous_error),
          "set_state: the state is not the snapshot");
      if (pid.settings().anti_windup != AntiWindup::ITermClampInOutput)
        for (Eigen::Index j = 0; j < n; ++j)
          CLAW_FUZZ_CHECK(candidate.integral(j) >= pid.settings().iterm_min(j) &&
                              candidate.integral(j) <= pid.settings().iterm_max(j),
                          "set_state accepted I outside [iterm_min, iterm_max]");
      first = pid.next_step_is_first();
      for (Eigen::Index j = 0; j < n; ++j) restarted(j) = candidate.restarted(j);
      continue;
    }
    // An update, short or full form, with finite or any inputs.
    const bool raw = in.byte() % 4 == 0;
    for (Eigen::Index j = 0; j < n; ++j) {
      target(j) = raw ? in.value<Scalar>() : in.finite<Scalar>();
      target_velocity(j) = raw ? in.value<Scalar>() : in.finite<Scalar>();
      feedforward(j) = raw ? in.value<Scalar>() : in.finite<Scalar>();
      q(j) = raw ? in.value<Scalar>() : in.finite<Scalar>();
      v(j) = raw ? in.value<Scalar>() : in.finite<Scalar>();
    }
    // The Pid's own account of a first step (it also starts afresh after fast-path steps) must
    // include every one this harness knows of (construction, reset).
    CLAW_FUZZ_CHECK(!first || pid.next_step_is_first(), "a step after reset is not a first step");
    first = pid.next_step_is_first();
    const bool full = op % 2 == 0;
    // The period: settings().dt, or one of the call's (any value: check_time_step's statuses).
    const bool per_call = in.byte() % 3 == 0;
    const Scalar period = !per_call      ? pid.settings().dt
                          : in.boolean() ? in.value<Scalar>()
                                         : Scalar(in.integer(1, 4000)) * Scalar(1e-6);
    const bool finite =
        claw_fuzz::finite(target) && claw_fuzz::finite(q) && claw_fuzz::finite(v) &&
        (!full || (claw_fuzz::finite(target_velocity) && claw_fuzz::finite(feedforward)));
    const Vec out_before = out;
    const Vec integral_before = pid.integral_term();
    const Vec slew_before = pid.slew_state();
    Status status;
    if (per_call)
      status = full ? pid.update(target, target_velocity, feedforward, q, v, period, out)
                    : pid.update(target, q, v, period, out);
    else
      status = full ? pid.update(target, target_velocity, feedforward, q, v, out)
                    : pid.update(target, q, v, out);
    const bool untouched = claw_fuzz::same_bits(out, out_before) &&
                           claw_fuzz::same_bits(pid.integral_term(), integral_before) &&
                           claw_fuzz::same_bits(pid.slew_state(), slew_before);
    if (per_call && !(std::isfinite(period) && period >= Scalar(CLAW_MIN_TIME_STEP))) {
      // check_time_step: NaN/Inf, negative, or no time passing; the state never moves.
      const Status expected = !std::isfinite(period) ? Status::NonFiniteInput
                              : period < Scalar(0)   ? Status::NegativeTimeStep
                              : !finite              ? Status::NonFiniteInput
                                                     : Status::Ok;
      CLAW_FUZZ_CHECK(status == expected, "update with a period below the minimum: status");
      CLAW_FUZZ_CHECK(untouched, "a period below the minimum touched state or output");
      continue;
    }
    if (!finite) {
      CLAW_FUZZ_CHECK(status == Status::NonFiniteInput, "non-finite input accepted");
      CLAW_FUZZ_CHECK(untouched, "a refused update touched state or output");
      continue;
    }
    CLAW_FUZZ_CHECK(status == Status::Ok || status == Status::NumericalOverflow, "update status");
    CLAW_FUZZ_CHECK(pid.state().finite(), "the state holds NaN/Inf (so state() would not restore)");
    const Settings& s = pid.settings();
    const Scalar h = period;
    for (Eigen::Index j = 0; j < n; ++j) {
      const bool held = status == Status::NumericalOverflow &&
                        claw_fuzz::same_scalar_bits(out(j), out_before(j)) &&
                        claw_fuzz::same_scalar_bits(pid.integral_term()(j), integral_before(j));
      if (held) continue;
      const Scalar u = out(j);
      CLAW_FUZZ_CHECK(std::isfinite(u), "finite input gave a non-finite effort");
      // Effort limits at the measured velocity.
      if (s.limits.kind == EffortLimitKind::Bounds) {
        CLAW_FUZZ_CHECK(u >= s.limits.lower(j) && u <= s.limits.upper(j),
                        "effort outside its bounds");
      } else if (s.limits.kind == EffortLimitKind::DcMotor) {
        // The envelope in long double from its definition (vh clipped at the edges), with a
        // rounding allowance of a few ulp of tmax and of the envelope's ends.
        using Long = long double;
        const Long tsat = s.limits.stall_effort(j), tmax = s.limits.peak_effort(j);
        const Long vlim = s.limits.no_load_speed(j);
        Long lower = -tmax, upper = tmax;
        if (std::isinf(vlim)) {
          upper = std::fmin(tsat, tmax);
          lower = std::fmax(-tsat, -tmax);
        } else {
          const Long edge = vlim * (1 + tmax / tsat);
          const Long vh = Long(v(j)) < -edge ? -edge : (Long(v(j)) > edge ? edge : Long(v(j)));
          upper = std::fmin(tsat * (1 - vh / vlim), tmax);
          lower = std::fmax(tsat * (-1 - vh / vlim), -tmax);
        }
        const Long slack = 8 * Long(std::numeric_limits<Scalar>::epsilon()) *
                               (std::fabs(upper) + std::fabs(lower) +
                                (std::isinf(tmax) ? 0 : tmax) + (std::isinf(tsat) ? 0 : tsat)) +
                           2 * Long(std::numeric_limits<Scalar>::denorm_min());
        CLAW_FUZZ_CHECK(u >= lower - slack && u <= upper + slack,
                        "effort outside the DC-motor envelope");
      }
      // Integral clamps.
      const Scalar integral = pid.integral_term()(j);
      if (s.anti_windup == AntiWindup::IntegralClamp) {
        const Scalar limit = std::isinf(s.integral_max(j)) ? s.integral_max(j)
                                                           : std::fabs(s.ki(j)) * s.integral_max(j);
        CLAW_FUZZ_CHECK(std::fabs(integral) <= limit, "IntegralClamp: |I| above ki integral_max");
      }
      if (s.anti_windup != AntiWindup::ITermClampInOutput) {
        CLAW_FUZZ_CHECK(integral >= s.iterm_min(j) && integral <= s.iterm_max(j),
                        "I outside [iterm_min, iterm_max]");
      }
      // Slew limit: the limited setpoint moves by at most S h per step.
      const Scalar rate = s.slew_rate(j);
      if (!std::isinf(rate)) {
        const Scalar state = pid.slew_state()(j);
        CLAW_FUZZ_CHECK(std::isfinite(state), "non-finite slew state");
        const Scalar step = rate * h;
        const Scalar eps = std::numeric_limits<Scalar>::epsilon();
        Scalar from = slew_before(j);
        const bool first_j = first || restarted(j);  // reset_joints makes a joint's first step
        bool check = !first_j;
        if (first_j && s.slew_start == claw::SlewStart::FromMeasurement) from = q(j), check = true;
        if (first_j && s.slew_start == claw::SlewStart::FromZero) from = Scalar(0), check = true;
        if (check && std::isfinite(step)) {
          const Scalar slack = Scalar(4) * eps * (std::fabs(from) + step);
          CLAW_FUZZ_CHECK(std::fabs(state - from) <= step + slack, "slew limit exceeded");
        }
      }
    }
    first = false;
    restarted.setConstant(false);
  }
}

}  // namespace

CLAW_FUZZ_ENTRY_FLOAT_AND_DOUBLE(run)
