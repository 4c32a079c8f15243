// claw/laws/pid.hpp: the parallel PID law u = c + ff + kp e + I + kd d for N joints, with its
// options: derivative source and filter, integral rule, anti-windup, limits, slew, angle wrap.
#pragma once

#include <cmath>

#include "claw/core/assert.hpp"
#include "claw/core/bits.hpp"
#include "claw/core/interval.hpp"
#include "claw/core/remainder.hpp"
#include "claw/core/status.hpp"
#include "claw/core/time_step.hpp"
#include "claw/core/types.hpp"
#include "claw/laws/anti_windup.hpp"
#include "claw/laws/effort_clamp.hpp"
#include "claw/laws/pid_derived.hpp"
#include "claw/laws/pid_kernel.hpp"
#include "claw/laws/pid_settings.hpp"
#include "claw/laws/pid_state.hpp"
#include "claw/laws/slew_limiter.hpp"

namespace claw {

/// Parallel PID for N joints, per joint:
///   q*~ = slew(clip(q*, target_min, target_max));  e = q*~ - q  (wrapped for continuous joints)
///   d   = v* - v | (e - e_prev)/h | -(q - q_prev)/h, optionally low-passed
///   I   = integral term [effort] (= ki z, z the error integral [pos s]), advanced by the rule and
///         the anti-windup of PidSettings
///   u   = c + ff + kp e + I + kd d;   out = clip(u) to the effort limits at v.
/// I is kept in effort units, so set_gains() is bumpless. Hot calls are noexcept and allocate
/// nothing; NaN/Inf inputs return NonFiniteInput and vectors whose size is not size() (or a PID
/// of size 0) SizeMismatch, in every build, with state and outputs untouched.
/// The common configuration (derivative on the velocity error, no slew, wrap, filter, deadband or
/// input ranges, anti-windup None / IntegralClamp / ITermClamp, no DcMotor limits) runs a fast path
/// that keeps no error, measurement or slew history: when configure() later turns on an option that
/// needs one, the next step is a first step, as after reset() (next_step_is_first()).
template <typename Scalar_, int N_ = Dynamic, int MaxN_ = N_>
class Pid {
 public:
  using Scalar = Scalar_;                           ///< the scalar type (float or double)
  using VectorType = Vector<Scalar, N_, MaxN_>;     ///< one entry per joint
  using Settings = PidSettings<Scalar, N_, MaxN_>;  ///< the options configure() takes
  using State = PidState<Scalar, N_, MaxN_>;        ///< what is carried between steps
  static constexpr const char* kCommandQuantity = "commandEffort";  ///< out, for logging

  Pid() : Pid(N_ == Dynamic ? 0 : N_) {}

  /// A PID for n joints with zero gains (allocates here for dynamic sizes, never afterwards).
  explicit Pid(Eigen::Index n) {
    CLAW_ASSERT(N_ == Dynamic || n == N_, "Pid: size differs from the fixed size");
    CLAW_ASSERT(MaxN_ == Dynamic || n <= MaxN_, "Pid: size above MaxN");
    if (N_ == Dynamic) {  // a fixed size's defaults are already these (PidSettings, PidDerived)
      settings_.resize(n);
      derived_.resize(n);
    }
    if (N_ == Dynamic) state_ = State(n);
    derived_.refresh(settings_);
  }

  Eigen::Index size() const noexcept { return state_.integral.size(); }  ///< joint count n

  /// Validates and installs settings (see PidSettings::validate); keeps the old ones on failure.
  /// The state (integral, previous error, slew, filter) is kept: call reset() to restart; only
  /// an integral outside its new bounds moves onto them at once (as Arduino PID_v1's
  /// SetOutputLimits does), so that I is always within them (bind_integral). A Pid of size 0
  /// (a dynamic Pid constructed without a size) refuses this and every other call with
  /// SizeMismatch.
  Status configure(const Settings& settings) noexcept {
    if (size() == 0) return Status::SizeMismatch;
    const Status status = settings.validate(size());
    if (status != Status::Ok) return status;
    settings_ = settings;
    derived_.refresh(settings_);
    bind_integral();
    return Status::Ok;
  }

  /// Real-time-safe gain change; bumpless (I is in effort units) except that an I outside bounds
  /// the new ki narrows (IntegralClamp's |ki| integral_max) moves onto them at once, as in
  /// configure(). InvalidParameter (old gains kept) for a gain that is not finite, negative without
  /// PidSettings::signed_gains, or a ki whose IntegralClamp bounds miss [iterm_min, iterm_max]
  /// (PidSettings::integral_bounds).
  template <typename DP, typename DI, typename DD>
  Status set_gains(const Eigen::MatrixBase<DP>& kp, const Eigen::MatrixBase<DI>& ki,
                   const Eigen::MatrixBase<DD>& kd) noexcept {
    if (!sized(kp, ki, kd)) return Status::SizeMismatch;
    for (Eigen::Index j = 0; j < size(); ++j)
      for (Scalar g : {kp.coeff(j), ki.coeff(j), kd.coeff(j)})
        if (!settings_.accepts_gain(g)) return Status::InvalidParameter;
    for (Eigen::Index j = 0; j < size(); ++j) {  // the new ki keeps I's bounds non-empty
      const Interval<Scalar> i_bounds = settings_.integral_bounds(j, ki.coeff(j));
      if (!(i_bounds.lower <= i_bounds.upper)) return Status::InvalidParameter;
    }
    settings_.kp = kp;
    settings_.ki = ki;
    settings_.kd = kd;
    derived_.refresh(settings_);
    bind_integral();
    return Status::Ok;
  }

  /// Restart: integral 0 (within its bounds), filter 0, the next step is a first step (no
  /// derivative history, slew state taken per SlewStart).
  void reset() noexcept {
    state_.integral.setZero();
    state_.filtered_derivative.setZero();
    state_.slew_state.setZero();
    state_.first = true;
    state_.measurement_seeded = false;
    forget_joint_restarts();
    bind_integral();
  }

  /// Restarts the joints where `selected` is true (one bool per joint: a batch of robots whose
  /// episodes ended) as reset() restarts all: integral 0 (within its bounds), filter 0, and their
  /// next step is a first step (no derivative or measurement history, slew per SlewStart). The
  /// other joints' state is not touched, bit for bit. SizeMismatch (nothing touched) for a mask of
  /// another size. Allocation-free.
  template <typename DM>
  Status reset_joints(const Eigen::DenseBase<DM>& selected) noexcept {
    if (size() == 0 || selected.size() != size()) return Status::SizeMismatch;
    for (Eigen::Index j = 0; j < size(); ++j)
      if (selected.coeff(j)) restart_joint(j);
    return Status::Ok;
  }

  /// Restarts joints begin .. begin + count - 1 as above (one robot's joints in a batch);
  /// SizeMismatch (nothing touched) when the range is not within 0 .. size() - 1.
  Status reset_joints(Eigen::Index begin, Eigen::Index count) noexcept {
    if (!range_within(begin, count, size())) return Status::SizeMismatch;
    for (Eigen::Index j = begin; j < begin + count; ++j) restart_joint(j);
    return Status::Ok;
  }

  /// Bumpless restart: as reset(), with the integral set so that a zero error, zero derivative
  /// and zero feedforward give `output` (I = output - c, within I's bounds); `measurement` seeds
  /// the measurement history, so the next step's measurement change q - measurement drives the
  /// Measurement derivative and proportional-on-measurement (as Arduino PID_v1's Initialize()); the
  /// error history is not seeded (the first-step rule of ErrorDifference applies). Nothing is
  /// touched on SizeMismatch (a size other than size()), NonFiniteInput (NaN/Inf) nor on
  /// NumericalOverflow (finite output and c whose difference overflows).
  template <typename DQ, typename DU>
  Status reset(const Eigen::MatrixBase<DQ>& measurement,
               const Eigen::MatrixBase<DU>& output) noexcept {
    if (!sized(measurement, output)) return Status::SizeMismatch;
    if (!all_finite(measurement) || !all_finite(output)) return Status::NonFiniteInput;
    for (Eigen::Index j = 0; j < size(); ++j)
      if (!std::isfinite(output.coeff(j) - settings_.constant_effort.coeff(j)))
        return Status::NumericalOverflow;
    reset();
    state_.integral = output - settings_.constant_effort;
    bind_integral();
    state_.previous_measurement = measurement;
    state_.measurement_seeded = true;
    return Status::Ok;
  }

  /// One control period h = settings().dt with v* = 0 and ff = 0: out = PID(q*, q, v).
  template <typename DT, typename DQ, typename DV, typename DOut>
  Status update(const Eigen::MatrixBase<DT>& target, const Eigen::MatrixBase<DQ>& q,
                const Eigen::MatrixBase<DV>& v, const Eigen::MatrixBase<DOut>& out) noexcept {
    return update_impl<false>(target, target, target, q, v, settings_.dt, out);
  }

  /// One control period h = settings().dt with target velocity v* [pos/s] and feedforward ff
  /// [effort].
  template <typename DT, typename DTV, typename DFF, typename DQ, typename DV, typename DOut>
  Status update(const Eigen::MatrixBase<DT>& target, const Eigen::MatrixBase<DTV>& target_velocity,
                const Eigen::MatrixBase<DFF>& feedforward, const Eigen::MatrixBase<DQ>& q,
                const Eigen::MatrixBase<DV>& v, const Eigen::MatrixBase<DOut>& out) noexcept {
    return update_impl<true>(target, target_velocity, feedforward, q, v, settings_.dt, out);
  }

  /// One period of measured length h [s] (a ROS control loop's period, a variable simulator step):
  /// every term that integrates or differentiates uses it (integral ki e h, derivative difference
  /// / h, filter coefficient h N, slew step S h, back-calculation h / Tt with Tt = h when
  /// h >= 2 Tt); settings().dt is not read. h = settings().dt gives the fixed-period update's
  /// numbers bit for bit. h follows check_time_step: NaN/Inf NonFiniteInput, h < 0
  /// NegativeTimeStep (nothing touched); 0 <= h < CLAW_MIN_TIME_STEP Ok with no time passing:
  /// neither the state nor out is touched (out keeps the last command).
  template <typename DT, typename DQ, typename DV, typename DOut>
  Status update(const Eigen::MatrixBase<DT>& target, const Eigen::MatrixBase<DQ>& q,
                const Eigen::MatrixBase<DV>& v, Scalar h,
                const Eigen::MatrixBase<DOut>& out) noexcept {
    bool skip = false;
    const Status step = check_period(h, skip, out, target, q, v);
    if (step != Status::Ok || skip) return step;
    return update_impl<false>(target, target, target, q, v, h, out);
  }

  /// One period of measured length h [s] with v* and ff (h as in the overload above).
  template <typename DT, typename DTV, typename DFF, typename DQ, typename DV, typename DOut>
  Status update(const Eigen::MatrixBase<DT>& target, const Eigen::MatrixBase<DTV>& target_velocity,
                const Eigen::MatrixBase<DFF>& feedforward, const Eigen::MatrixBase<DQ>& q,
                const Eigen::MatrixBase<DV>& v, Scalar h,
                const Eigen::MatrixBase<DOut>& out) noexcept {
    bool skip = false;
    const Status step = check_period(h, skip, out, target, target_velocity, feedforward, q, v);
    if (step != Status::Ok || skip) return step;
    return update_impl<true>(target, target_velocity, feedforward, q, v, h, out);
  }

  /// Integral term I [effort] per joint.
  const VectorType& integral_term() const noexcept { return state_.integral; }
  /// Error integral z = I / ki [pos s] of joint j (0 when ki = 0): MuJoCo's act state.
  Scalar error_integral(Eigen::Index j) const noexcept {
    const Scalar ki = settings_.ki.coeff(j);
    return ki != Scalar(0) ? state_.integral.coeff(j) / ki : Scalar(0);
  }
  /// Replaces the integral term (e.g. to hand over from another controller), clipped into I's
  /// bounds (bind_integral). NonFiniteInput on NaN/Inf.
  template <typename DI>
  Status set_integral_term(const Eigen::MatrixBase<DI>& integral) noexcept {
    if (!sized(integral)) return Status::SizeMismatch;
    if (!all_finite(integral)) return Status::NonFiniteInput;
    state_.integral = integral;
    bind_integral();
    return Status::Ok;
  }
  /// Replaces joint j's integral term (clipped as above); SizeMismatch when j is outside
  /// 0..size()-1, NonFiniteInput on NaN/Inf (nothing touched either way).
  Status set_integral_term(Eigen::Index j, Scalar value) noexcept {
    if (j < 0 || j >= size()) return Status::SizeMismatch;
    if (!std::isfinite(value)) return Status::NonFiniteInput;
    state_.integral.coeffRef(j) = bounded_integral(j, value);
    return Status::Ok;
  }
  /// True when the next update is a first step: no derivative history, slew state taken per
  /// SlewStart (after construction, reset(), or steps on the fast path; see the class comment).
  bool next_step_is_first() const noexcept { return state_.first || !state_.history_valid; }
  /// Slew limiter state s (the last limited setpoint) per joint.
  const VectorType& slew_state() const noexcept { return state_.slew_state; }
  const Settings& settings() const noexcept { return settings_; }  ///< the installed settings

  /// Everything carried between steps (rollback, checkpoints): copy it, keep it, and set_state()
  /// restores the Pid bit for bit under the same settings. Copying into a snapshot of this size
  /// allocates nothing.
  const State& state() const noexcept { return state_; }
  /// Restores a snapshot. Refused, nothing touched: SizeMismatch (a member's size is not size()),
  /// NonFiniteInput (NaN/Inf), InvalidParameter (an integral outside I's current bounds).
  Status set_state(const State& snapshot) noexcept {
    if (size() == 0 || !snapshot.has_size(size())) return Status::SizeMismatch;
    if (!snapshot.finite()) return Status::NonFiniteInput;
    for (Eigen::Index j = 0; j < size(); ++j)
      if (bounded_integral(j, snapshot.integral.coeff(j)) != snapshot.integral.coeff(j))
        return Status::InvalidParameter;
    state_ = snapshot;
    state_.any_restarted = state_.restarted.any();
    return Status::Ok;
  }
  /// Logging (core/fields.hpp): the state's quantities, one scalar per joint each.
  static constexpr int state_quantity_count() noexcept { return State::kQuantityCount; }
  /// Name of quantity q, 0 <= q < state_quantity_count() (PidState::quantity).
  static StateQuantity state_quantity(int q) noexcept { return State::quantity(q); }
  /// Value of quantity q at joint j, in its member's units (PidState::value).
  Scalar state_value(int q, Eigen::Index j) const noexcept { return state_.value(q, j); }

  /// True when update() takes the simple path (detail::pid_simple): the common configuration.
  bool on_simple_path() const noexcept { return derived_.simple; }

  /// The fixed-period update on the simple path, for a block that runs the PID inside its own pass
  /// over memory (Actuator): the commands come from target(j), target_velocity(j), feedforward(j)
  /// and out[j] is stage(j, u, flags), as detail::pid_simple says. The caller has made update()'s
  /// checks: on_simple_path(), size() joints in q, v, out and the commands, all finite, out apart
  /// from every input. Returns pid_simple's flags (overflow: update()'s NumericalOverflow).
  template <bool kFull, typename Target, typename TargetVelocity, typename Feedforward,
            typename Stage>
  detail::PidSimpleFlags update_unchecked(Target target, TargetVelocity target_velocity,
                                          Feedforward feedforward, const Scalar* q, const Scalar* v,
                                          Scalar* out, Stage stage) noexcept {
    return simple_pass<kFull>(target, target_velocity, feedforward, q, v, settings_.dt, out, stage);
  }

 private:
  // One pass of the simple path with period h (pid_kernel.hpp), then its effect on the history.
  template <bool kFull, typename Target, typename TargetVelocity, typename Feedforward,
            typename Stage>
  detail::PidSimpleFlags simple_pass(Target target, TargetVelocity target_velocity,
                                     Feedforward feedforward, const Scalar* q, const Scalar* v,
                                     Scalar h, Scalar* out, Stage stage) noexcept {
    const Settings& s = settings_;
    const detail::PidSimpleFlags flags = detail::dispatch_pid_simple<kFull, N_ == Dynamic>(
        s.integral_rule == IntegralRule::BackwardEuler, !derived_.zero_constant_effort,
        !derived_.symmetric_integral, size(), target, target_velocity, feedforward, q, v,
        s.kp.data(), s.ki.data(), s.kd.data(), s.constant_effort.data(),
        derived_.integral_lower.data(), derived_.integral_upper.data(),
        derived_.effort_lower.data(), derived_.effort_upper.data(), state_.integral.data(), out, h,
        stage);
    state_.first = false;
    state_.measurement_seeded = false;
    forget_joint_restarts();
    state_.history_valid = false;
    return flags;
  }

  /// The Pid has joints (size 0 refuses every call) and every vector has size() entries.
  template <typename... Vectors>
  bool sized(const Vectors&... vectors) const noexcept {
    return size() > 0 && all_have_size(size(), vectors...);
  }

  /// The per-period update's gate, in the order of every call: sizes (SizeMismatch), then
  /// check_time_step(h); a step of no time still refuses NaN/Inf inputs (NonFiniteInput).
  template <typename DOut, typename... Inputs>
  Status check_period(Scalar h, bool& skip, const Eigen::MatrixBase<DOut>& out,
                      const Inputs&... inputs) const noexcept {
    skip = false;
    if (!sized(out, inputs...)) return Status::SizeMismatch;
    const Status step = check_time_step(h, skip);
    if (step != Status::Ok) return step;
    if (skip && !(all_finite(inputs) && ...)) return Status::NonFiniteInput;
    return Status::Ok;
  }

  /// `value` as joint j's I: within its bounds [derived_.integral_lower, derived_.integral_upper]
  /// (the I-term bounds within IntegralClamp's), except under ITermClampInOutput, whose state is
  /// free. The invariant every step keeps, so a forward-Euler output never uses an I outside them.
  Scalar bounded_integral(Eigen::Index j, Scalar value) const noexcept {
    if (settings_.anti_windup == AntiWindup::ITermClampInOutput) return value;
    return clip(value, derived_.integral_lower.coeff(j), derived_.integral_upper.coeff(j));
  }

  void bind_integral() noexcept {
    for (Eigen::Index j = 0; j < size(); ++j)
      state_.integral.coeffRef(j) = bounded_integral(j, state_.integral.coeff(j));
  }

  void restart_joint(Eigen::Index j) noexcept {
    state_.integral.coeffRef(j) = bounded_integral(j, Scalar(0));
    state_.filtered_derivative.coeffRef(j) = Scalar(0);
    state_.slew_state.coeffRef(j) = Scalar(0);
    state_.restarted.coeffRef(j) = true;
    state_.any_restarted = true;
  }

  void forget_joint_restarts() noexcept {
    if (!state_.any_restarted) return;
    state_.restarted.setConstant(false);
    state_.any_restarted = false;
  }

  Scalar wrap(Scalar x, Eigen::Index j) const noexcept {
    const Scalar period = settings_.wrap_period.coeff(j);
    return period > Scalar(0) ? detail::remainder(x, period) : x;
  }

  template <bool kFull, typename DT, typename DTV, typename DFF, typename DQ, typename DV,
            typename DOut>
  Status update_impl(const Eigen::MatrixBase<DT>& target,
                     const Eigen::MatrixBase<DTV>& target_velocity,
                     const Eigen::MatrixBase<DFF>& feedforward, const Eigen::MatrixBase<DQ>& q,
                     const Eigen::MatrixBase<DV>& v, Scalar h,
                     const Eigen::MatrixBase<DOut>& out) noexcept {
    // Every build: a vector of another size, or a PID never given joints (size 0), is refused.
    if (!sized(target, target_velocity, feedforward, q, v, out)) return Status::SizeMismatch;
    if (!detail::pid_inputs_finite<kFull>(target, target_velocity, feedforward, q, v))
      return Status::NonFiniteInput;
    auto& effort = const_cast<Eigen::MatrixBase<DOut>&>(out);
    if constexpr (detail::all_contiguous<DT, DTV, DFF, DQ, DV, DOut>()) {
      if (derived_.simple)
        return update_simple<kFull>(target, target_velocity, feedforward, q, v, h, effort);
    }
    const Settings& s = settings_;
    // The simple path keeps no error/measurement history: after it, start the history afresh.
    const bool all_first = state_.first || !state_.history_valid;
    const bool all_known = !all_first || state_.measurement_seeded;  // the measurement history
    Status status = Status::Ok;
    for (Eigen::Index j = 0; j < size(); ++j) {
      const bool restarted = state_.any_restarted && state_.restarted.coeff(j);  // reset_joints
      const bool first = all_first || restarted;
      const bool measurement_known = all_known && !restarted;
      const Scalar y = q.coeff(j);
      const Scalar vel = v.coeff(j);
      Scalar r = target.coeff(j);
      if (derived_.has_target_range) r = clip(r, s.target_min.coeff(j), s.target_max.coeff(j));
      Scalar slew = state_.slew_state.coeff(j);
      if (derived_.has_slew)
        r = detail::slew_limit(r, y, s.slew_rate.coeff(j), h, first, s.slew_start, slew);
      Scalar vr = Scalar(0), ff = Scalar(0);
      if (kFull) {
        vr = target_velocity.coeff(j);
        ff = feedforward.coeff(j);
        if (derived_.has_velocity_range)
          vr = clip(vr, s.target_velocity_min.coeff(j), s.target_velocity_max.coeff(j));
        if (derived_.has_feedforward_range)
          ff = clip(ff, s.feedforward_min.coeff(j), s.feedforward_max.coeff(j));
      }
      const Scalar e = derived_.has_wrap ? wrap(r - y, j) : r - y;
      const Scalar dy = !measurement_known
                            ? Scalar(0)
                            : (derived_.has_wrap ? wrap(y - state_.previous_measurement.coeff(j), j)
                                                 : y - state_.previous_measurement.coeff(j));

      // Derivative.
      Scalar d;
      switch (s.derivative) {
        case DerivativeSource::VelocityError:
          d = vr - vel;
          break;
        case DerivativeSource::ErrorDifference:
          if (!first)
            d = (e - state_.previous_error.coeff(j)) / h;
          else
            d = s.derivative_from_zero_error ? e / h : Scalar(0);
          break;
        default:
          d = -dy / h;
          break;
      }
      Scalar d_filtered = state_.filtered_derivative.coeff(j);
      if (derived_.has_filter) {
        const Scalar n_filter = s.derivative_filter.coeff(j);
        if (n_filter > Scalar(0) && !std::isinf(n_filter)) {
          d_filtered = (d_filtered + h * n_filter * d) / (Scalar(1) + h * n_filter);
          d = d_filtered;
        }
      }

      // Integral: the increment of this step, the value the output uses, and the next state.
      const Scalar kp = s.kp.coeff(j), ki = s.ki.coeff(j), kd = s.kd.coeff(j);
      const Scalar integral = state_.integral.coeff(j);
      Scalar e_integrated = e;
      if (s.anti_windup == AntiWindup::StopAtLimit && ki != Scalar(0)) {
        // On z = I / ki (dz = e h whatever ki's sign): |z| >= integral_max is |ki| z >=
        // |ki| integral_max on z's side of zero.
        const Scalar limit = std::fabs(ki) * s.integral_max.coeff(j);
        const Scalar z_scaled = ki > Scalar(0) ? integral : -integral;  // |ki| z
        if (z_scaled >= limit)
          e_integrated = (e < Scalar(0)) ? e : Scalar(0);
        else if (z_scaled <= -limit)
          e_integrated = (e > Scalar(0)) ? e : Scalar(0);
      }
      // Inside the deadband the integral holds: no ki e h here, no correction below.
      const Scalar deadband = s.error_deadband.coeff(j);
      const bool hold = deadband > Scalar(0) && std::fabs(e) <= deadband;
      if (hold) e_integrated = Scalar(0);
      const Scalar pom = s.proportional_on_measurement ? -kp * dy : Scalar(0);
      const Scalar stepped = integral + ki * (e_integrated * h) + pom;
      const Scalar lo = derived_.integral_lower.coeff(j), hi = derived_.integral_upper.coeff(j);
      const Scalar clipped = clip(stepped, lo, hi);
      const Scalar advanced = s.anti_windup == AntiWindup::ITermClampInOutput ? stepped : clipped;
      const bool backward = s.integral_rule == IntegralRule::BackwardEuler;
      Scalar used = backward ? clipped : clip(integral, lo, hi);
      const Scalar base = s.constant_effort.coeff(j) + ff +
                          (s.proportional_on_measurement ? Scalar(0) : kp * e) + kd * d;
      Scalar lower, upper;
      detail::effort_interval(s.limits, j, vel, lower, upper);
      Scalar u = base + used;
      Scalar u_sat = clip(u, lower, upper);
      Scalar next = advanced;
      // Conditional: frozen while saturated with this step's ki h e pushing u further out.
      const Scalar push = ki < Scalar(0) ? -e : e;
      if (s.anti_windup == AntiWindup::Conditional && !hold && u_sat != u &&
          push * (u - u_sat) > Scalar(0)) {
        next = clip(integral + pom, lo, hi);  // drop this step's ki h e
        if (backward) {
          used = next;
          u = base + used;
          u_sat = clip(u, lower, upper);
        }
      } else if (s.anti_windup == AntiWindup::BackCalculation && !hold) {
        // In saturation the update scales the distance to its fixed point by 1 - h/Tt, which
        // diverges from h/Tt = 2 on: there Tt = h (the integral lands on the edge at once).
        Scalar tt = derived_.tracking_time.coeff(j);
        if (!(h < tt + tt)) tt = h;
        // Forward Euler: I + h (ki e + (u_sat - u) / Tt), then the bounds (control_toolbox).
        next = clip((backward ? advanced : stepped) + h * ((u_sat - u) / tt), lo, hi);
      }
      // Committed only when the output and everything stored are finite (the state never holds
      // NaN/Inf, so state() always passes set_state()); else this joint is held.
      if (!std::isfinite(u_sat) || !std::isfinite(next) || !std::isfinite(e) ||
          !std::isfinite(d_filtered)) {
        status = Status::NumericalOverflow;
        continue;
      }
      effort.coeffRef(j) = u_sat;
      state_.integral.coeffRef(j) = next;
      state_.previous_error.coeffRef(j) = e;
      state_.previous_measurement.coeffRef(j) = y;
      state_.slew_state.coeffRef(j) = slew;
      state_.filtered_derivative.coeffRef(j) = d_filtered;
    }
    state_.first = false;
    state_.measurement_seeded = false;
    forget_joint_restarts();
    state_.history_valid = true;
    return status;
  }

  // The common configuration, without per-joint option branches: derivative on the velocity error,
  // proportional on error, no slew, wrap, filter or input ranges, anti-windup None / IntegralClamp
  // / ITermClamp (folded into the bounds of I), limits None or Bounds
  // (derived_.effort_lower, effort_upper). Same operations in the same order as the general path,
  // so the same numbers. Used when every vector is contiguous in memory; the loop then runs on raw
  // pointers (see detail::pid_simple).
  template <bool kFull, typename DT, typename DTV, typename DFF, typename DQ, typename DV,
            typename DOut>
  Status update_simple(const Eigen::MatrixBase<DT>& target,
                       const Eigen::MatrixBase<DTV>& target_velocity,
                       const Eigen::MatrixBase<DFF>& feedforward, const Eigen::MatrixBase<DQ>& q,
                       const Eigen::MatrixBase<DV>& v, Scalar h,
                       Eigen::MatrixBase<DOut>& effort) noexcept {
    using Command = detail::CommandArray<Scalar>;
    const Command tv{kFull ? target_velocity.derived().data() : nullptr};
    const Command ff{kFull ? feedforward.derived().data() : nullptr};
    return simple_pass<kFull>(Command{target.derived().data()}, tv, ff, q.derived().data(),
                              v.derived().data(), h, effort.derived().data(),
                              detail::NoOutputStage{})
                   .overflow
               ? Status::NumericalOverflow
               : Status::Ok;
  }

  Settings settings_;
  State state_;
  PidDerived<Scalar, N_, MaxN_> derived_;  // from settings_, refreshed whenever they change
};

using Pid7d = Pid<double, 7>;
using Pid7f = Pid<float, 7>;
using PidXd = Pid<double, Dynamic>;
using PidXf = Pid<float, Dynamic>;

}  // namespace claw
