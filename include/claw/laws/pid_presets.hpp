// claw/laws/pid_presets.hpp: named configurations of claw's one Pid (and StablePd, VelocityServo)
// that reproduce MuJoCo's plugin and native PID, Newton's DrivePID, control_toolbox, CoppeliaSim,
// Drake, Arduino.
#pragma once

#include <cstdint>
#include <limits>

#include "claw/core/types.hpp"
#include "claw/laws/pid.hpp"
#include "claw/laws/stable_pd.hpp"
#include "claw/laws/velocity_servo.hpp"

namespace claw {
namespace presets {

namespace detail {
/// n joints of the defaults with the gains, derivative source, integral rule and period set.
template <typename Scalar, int N, int MaxN>
PidSettings<Scalar, N, MaxN> base(Eigen::Index n, Scalar kp, Scalar ki, Scalar kd,
                                  DerivativeSource derivative, IntegralRule rule, Scalar dt) {
  PidSettings<Scalar, N, MaxN> settings;
  settings.resize(n);
  settings.kp.setConstant(kp);
  settings.ki.setConstant(ki);
  settings.kd.setConstant(kd);
  settings.derivative = derivative;
  settings.integral_rule = rule;
  settings.dt = dt;
  return settings;
}
template <typename Scalar, int N, int MaxN>
void set_bounds(EffortLimits<Scalar, N, MaxN>& limits, Scalar lower, Scalar upper) {
  if (std::isinf(lower) && std::isinf(upper)) {
    limits.kind = EffortLimitKind::None;
    return;
  }
  limits.kind = EffortLimitKind::Bounds;
  limits.lower.setConstant(lower);
  limits.upper.setConstant(upper);
}
}  // namespace detail

/// MuJoCo's `mujoco.pid` actuator plugin (dyntype none). Absent options are +-inf.
template <typename Scalar>
struct MujocoPluginPid {
  Scalar kp = 0,                           ///< proportional gain [force/length], >= 0
      ki = 0,                              ///< integral gain [force/(length s)], >= 0
      kd = 0;                              ///< derivative gain, on -v [force s/length], >= 0
  Scalar imax = infinity<Scalar>();        ///< I-term bound [force]; MuJoCo clamps z to +-imax/ki
  Scalar slewmax = infinity<Scalar>();     ///< setpoint rate [length/s]; skipped at t = 0
  Scalar ctrl_min = -infinity<Scalar>(),   ///< ctrlrange: lower bound of ctrl = q* [length]
      ctrl_max = infinity<Scalar>();       ///< ctrlrange: upper bound of ctrl = q* [length]
  Scalar force_min = -infinity<Scalar>(),  ///< forcerange: lower bound of the force [force]
      force_max = infinity<Scalar>();      ///< forcerange: upper bound of the force [force]
  Scalar timestep = Scalar(0.002);         ///< the model's timestep h [s]
};

/// The plugin's law: u = clip(ctrl, ctrlrange), slew-limited except on the first step;
/// z+ = clip(z + e h, +-imax/ki); force = kp e - kd v + ki z+, then forcerange. Call
/// Pid::update(q*, q, v, out) (no target velocity); its act state z is Pid::error_integral().
template <typename Scalar, int N = Dynamic, int MaxN = N>
PidSettings<Scalar, N, MaxN> mujoco_plugin(Eigen::Index n, const MujocoPluginPid<Scalar>& p) {
  auto s = detail::base<Scalar, N, MaxN>(n, p.kp, p.ki, p.kd, DerivativeSource::VelocityError,
                                         IntegralRule::BackwardEuler, p.timestep);
  if (p.ki > Scalar(0) && !std::isinf(p.imax)) {
    s.anti_windup = AntiWindup::ITermClamp;
    s.iterm_min.setConstant(-p.imax);
    s.iterm_max.setConstant(p.imax);
  }
  s.slew_rate.setConstant(p.slewmax);
  s.slew_start = SlewStart::PassFirst;
  s.target_min.setConstant(p.ctrl_min);
  s.target_max.setConstant(p.ctrl_max);
  detail::set_bounds(s.limits, p.force_min, p.force_max);
  return s;
}

/// MuJoCo's native `<pid>` actuator (3.12). imax and slewmax <= 0 or +inf mean absent.
template <typename Scalar>
struct MujocoNativePid {
  Scalar kp = 0,       ///< proportional gain [force/length], >= 0
      ki = 0,          ///< integral gain, on z [force/(length s)], >= 0
      kv = 0;          ///< velocity gain, on v* - v [force s/length], >= 0
  Scalar imax = 0;     ///< bound on the integral state z itself [length s] (StopAtLimit)
  Scalar slewmax = 0;  ///< [length/s]; applies from the first step, ramping from 0
  Scalar pos_min = -infinity<Scalar>(),    ///< posrange: lower bound of q* [length]
      pos_max = infinity<Scalar>();        ///< posrange: upper bound of q* [length]
  Scalar vel_min = -infinity<Scalar>(),    ///< velrange: lower bound of v* [length/s]
      vel_max = infinity<Scalar>();        ///< velrange: upper bound of v* [length/s]
  Scalar ff_min = -infinity<Scalar>(),     ///< ffrange: lower bound of ff [force]
      ff_max = infinity<Scalar>();         ///< ffrange: upper bound of ff [force]
  Scalar force_min = -infinity<Scalar>(),  ///< forcerange: lower bound of the force [force]
      force_max = infinity<Scalar>();      ///< forcerange: upper bound of the force [force]
  bool actearly = false;  ///< use this step's integral (backward Euler) instead of the previous
  Scalar timestep = Scalar(0.002);  ///< the model's timestep h [s]
};

/// The native law: inputs clipped by their ranges; slew from s = 0; z integrates e unless |z| >=
/// imax pushes further; force = kp (q* - q) + kv (v* - v) + ff + ki z (z before this step's update
/// unless actearly), then forcerange. Call the full Pid::update(q*, v*, ff, q, v, out).
template <typename Scalar, int N = Dynamic, int MaxN = N>
PidSettings<Scalar, N, MaxN> mujoco_native(Eigen::Index n, const MujocoNativePid<Scalar>& p) {
  auto s = detail::base<Scalar, N, MaxN>(
      n, p.kp, p.ki, p.kv, DerivativeSource::VelocityError,
      p.actearly ? IntegralRule::BackwardEuler : IntegralRule::ForwardEuler, p.timestep);
  if (p.ki > Scalar(0) && p.imax > Scalar(0) && !std::isinf(p.imax)) {
    s.anti_windup = AntiWindup::StopAtLimit;
    s.integral_max.setConstant(p.imax);
  }
  if (p.slewmax > Scalar(0)) s.slew_rate.setConstant(p.slewmax);
  s.slew_start = SlewStart::FromZero;
  s.target_min.setConstant(p.pos_min);
  s.target_max.setConstant(p.pos_max);
  s.target_velocity_min.setConstant(p.vel_min);
  s.target_velocity_max.setConstant(p.vel_max);
  s.feedforward_min.setConstant(p.ff_min);
  s.feedforward_max.setConstant(p.ff_max);
  detail::set_bounds(s.limits, p.force_min, p.force_max);
  return s;
}

/// Newton's DrivePID: u = kp e + ki z + kd (v* - v), z+ = clip(z + e h, +-integral_max) used at
/// once, |u| <= effort_limit.
template <typename Scalar>
struct NewtonDrivePid {
  Scalar kp = 0,                             ///< proportional gain [effort/pos], >= 0
      ki = 0,                                ///< integral gain, on z [effort/(pos s)], >= 0
      kd = 0;                                ///< derivative gain, on v* - v [effort s/pos], >= 0
  Scalar integral_max = infinity<Scalar>();  ///< [pos s]
  Scalar effort_limit = infinity<Scalar>();  ///< [effort]
  Scalar dt = Scalar(0.001);                 ///< control period h [s]
};

/// Explicit DrivePID as a Pid (call the full update with v* and ff as needed).
template <typename Scalar, int N = Dynamic, int MaxN = N>
PidSettings<Scalar, N, MaxN> newton_drive_pid(Eigen::Index n, const NewtonDrivePid<Scalar>& p) {
  auto s = detail::base<Scalar, N, MaxN>(n, p.kp, p.ki, p.kd, DerivativeSource::VelocityError,
                                         IntegralRule::BackwardEuler, p.dt);
  s.anti_windup = AntiWindup::IntegralClamp;
  s.integral_max.setConstant(p.integral_max);
  detail::set_bounds(s.limits, -p.effort_limit, p.effort_limit);
  return s;
}

/// Implicit DrivePID: a StablePd for kp, kd and the limit, fed with the integral part of a Pid
/// (kp = kd = 0, same clamp, no limit) as its feedforward: ff_stable = ki z+ (+ user ff).
template <typename Scalar, int N = Dynamic, int MaxN = N>
struct NewtonImplicitDrive {
  StablePdSettings<Scalar, N, MaxN> stable_pd;  ///< the StablePd: kp, kd and the effort limit
  PidSettings<Scalar, N, MaxN> integral;  ///< the integral-only Pid: its ki z+ is the StablePd's ff
};

/// The implicit DrivePID's two parts for n joints.
template <typename Scalar, int N = Dynamic, int MaxN = N>
NewtonImplicitDrive<Scalar, N, MaxN> newton_drive_pid_implicit(Eigen::Index n,
                                                               const NewtonDrivePid<Scalar>& p) {
  NewtonImplicitDrive<Scalar, N, MaxN> drive;
  drive.stable_pd.kp.setConstant(n, p.kp);
  drive.stable_pd.kd.setConstant(n, p.kd);
  drive.stable_pd.constant_effort.setZero(n);
  drive.stable_pd.limits.resize(n);
  detail::set_bounds(drive.stable_pd.limits, -p.effort_limit, p.effort_limit);
  drive.stable_pd.dt = p.dt;
  NewtonDrivePid<Scalar> integral_only = p;
  integral_only.kp = Scalar(0);
  integral_only.kd = Scalar(0);
  integral_only.effort_limit = infinity<Scalar>();
  drive.integral = newton_drive_pid<Scalar, N, MaxN>(n, integral_only);
  return drive;
}

/// ros-controls control_toolbox Pid anti-windup strategies (AntiWindupStrategy::type).
enum class ControlToolboxStrategy : std::uint8_t {
  None,                    ///< NONE: the integral is not limited by the output saturation
  BackCalculation,         ///< BACK_CALCULATION with the tracking time constant
  ConditionalIntegration,  ///< CONDITIONAL_INTEGRATION
  Legacy,  ///< LEGACY (<= 5.5 semantics, deprecated upstream): see legacy_antiwindup
};

/// control_toolbox Pid's gains and options, with its names.
template <typename Scalar>
struct ControlToolboxPid {
  Scalar p = 0,                        ///< proportional gain [effort/pos], any sign
      i = 0,                           ///< integral gain [effort/(pos s)], any sign
      d = 0;                           ///< derivative gain, on de [effort s/pos], any sign
  Scalar i_min = -infinity<Scalar>(),  ///< lower I-term bound [effort]
      i_max = infinity<Scalar>();      ///< upper I-term bound [effort]
  Scalar u_min = -infinity<Scalar>(),  ///< lower output saturation [effort]
      u_max = infinity<Scalar>();      ///< upper output saturation [effort]
  ControlToolboxStrategy strategy = ControlToolboxStrategy::BackCalculation;  ///< anti-windup
  bool legacy_antiwindup = false;  ///< Legacy only: true clamps the state I, false only its use
  Scalar tracking_time = 0;        ///< back-calculation Tt [s]; 0: sqrt(d/i), or p/i when d = 0
  /// |e| <= it: the integral holds (PidSettings::error_deadband); control_toolbox's default.
  Scalar error_deadband = std::numeric_limits<Scalar>::epsilon();
  Scalar dt = Scalar(0.001);  ///< control period h [s]
};

namespace detail {
/// control_toolbox's LEGACY strategy (the only one whose I enters before its own step):
/// I+ = I + i h e, used as clip(I+, i_min, i_max); legacy_antiwindup true also stores the clipped
/// value (ITermClamp), false lets the state run free (ITermClampInOutput).
template <typename Scalar, int N, int MaxN>
void control_toolbox_legacy_strategy(PidSettings<Scalar, N, MaxN>& s,
                                     const ControlToolboxPid<Scalar>& p) {
  s.integral_rule = IntegralRule::BackwardEuler;
  s.anti_windup = p.legacy_antiwindup ? AntiWindup::ITermClamp : AntiWindup::ITermClampInOutput;
  s.iterm_min.setConstant(p.i_min);
  s.iterm_max.setConstant(p.i_max);
}
}  // namespace detail

/// control_toolbox's compute_command(error, dt) as of its current release line (anchor: master of
/// 2026-05-06): d = (e - e_prev) / h with e_prev = 0 after reset; u = p e + I + d de
/// clipped to [u_min, u_max], then I advances (forward Euler) by h i e (None), by
/// h (i e + (u_sat - u) / Tt) (BackCalculation), or by h i e unless saturated with
/// e (u - u_sat) > 0 (ConditionalIntegration), and is clipped to [i_min, i_max] whatever the
/// strategy; no step of I while |e| <= error_deadband. Legacy: as control_toolbox_legacy.
/// Note: control_toolbox tests e u_unsat > 0 for the conditional freeze; claw tests the direction
/// of the saturation excess, which is the same whenever u_min <= 0 <= u_max.
template <typename Scalar, int N = Dynamic, int MaxN = N>
PidSettings<Scalar, N, MaxN> control_toolbox(Eigen::Index n, const ControlToolboxPid<Scalar>& p) {
  auto s = detail::base<Scalar, N, MaxN>(n, p.p, p.i, p.d, DerivativeSource::ErrorDifference,
                                         IntegralRule::ForwardEuler, p.dt);
  s.signed_gains = true;  // control_toolbox takes gains of any sign
  s.derivative_from_zero_error = true;
  s.error_deadband.setConstant(p.error_deadband);
  s.iterm_min.setConstant(p.i_min);
  s.iterm_max.setConstant(p.i_max);
  switch (p.strategy) {
    case ControlToolboxStrategy::None:
      s.anti_windup = AntiWindup::ITermClamp;
      break;
    case ControlToolboxStrategy::BackCalculation:
      s.anti_windup = AntiWindup::BackCalculation;
      // i = 0: control_toolbox skips the whole update, which Tt = +inf reproduces (I + 0).
      s.tracking_time.setConstant(p.i == Scalar(0) ? infinity<Scalar>() : p.tracking_time);
      break;
    case ControlToolboxStrategy::ConditionalIntegration:
      s.anti_windup = AntiWindup::Conditional;
      break;
    case ControlToolboxStrategy::Legacy:
      detail::control_toolbox_legacy_strategy(s, p);
      break;
  }
  detail::set_bounds(s.limits, p.u_min, p.u_max);
  return s;
}

/// control_toolbox <= 5.5 (anchor: tag 5.5.0): as control_toolbox() except that i_min and i_max
/// bound only the Legacy strategy (None, BackCalculation and ConditionalIntegration leave I
/// unbounded); i_min > i_max is refused whatever the strategy, as there.
template <typename Scalar, int N = Dynamic, int MaxN = N>
PidSettings<Scalar, N, MaxN> control_toolbox_legacy(Eigen::Index n,
                                                    const ControlToolboxPid<Scalar>& p) {
  auto s = control_toolbox<Scalar, N, MaxN>(n, p);
  if (p.strategy != ControlToolboxStrategy::Legacy && p.i_min <= p.i_max) {
    s.iterm_min.setConstant(-infinity<Scalar>());
    s.iterm_max.setConstant(infinity<Scalar>());
  }
  return s;
}

/// CoppeliaSim's joint properties that its default joint loop reads.
template <typename Scalar>
struct CoppeliaSimJoint {
  Scalar kp = Scalar(0.1);                     ///< PID_P [1]
  Scalar ki = 0;                               ///< PID_I [1/s]
  Scalar kd = 0;                               ///< PID_D [s]
  Scalar velocity_limit = infinity<Scalar>();  ///< velUpperLimit [pos/s]
  Scalar max_force = infinity<Scalar>();       ///< maxForce [effort]
  Scalar dt = Scalar(0.005);                   ///< dynStepSize [s]
};

/// CoppeliaSim's default joint loop with the joint's properties.
template <typename Scalar, int N = Dynamic, int MaxN = N>
VelocityServoSettings<Scalar, N, MaxN> coppeliasim_joint(Eigen::Index n,
                                                         const CoppeliaSimJoint<Scalar>& p) {
  VelocityServoSettings<Scalar, N, MaxN> s;
  s.kp.setConstant(n, p.kp);
  s.ki.setConstant(n, p.ki);
  s.kd.setConstant(n, p.kd);
  s.velocity_limit.setConstant(n, p.velocity_limit);
  s.max_effort.setConstant(n, p.max_force);
  s.dt = p.dt;
  return s;
}

/// Drake's PidController gains and the period h it is sampled at.
template <typename Scalar>
struct DrakePid {
  Scalar kp = 0,              ///< proportional gain [effort/pos], any sign
      ki = 0,                 ///< integral gain, on z [effort/(pos s)], any sign
      kd = 0;                 ///< derivative gain, on v* - v [effort s/pos], any sign
  Scalar dt = Scalar(0.001);  ///< sampling period h [s]
};

/// Drake's PidController sampled at h: u = kp e + ki z + kd (v* - v) with the integral state z
/// advanced after the output (forward Euler of the continuous state), no limits; gains of any
/// sign, as Drake takes them (signed_gains).
template <typename Scalar, int N = Dynamic, int MaxN = N>
PidSettings<Scalar, N, MaxN> drake(Eigen::Index n, const DrakePid<Scalar>& p) {
  auto s = detail::base<Scalar, N, MaxN>(n, p.kp, p.ki, p.kd, DerivativeSource::VelocityError,
                                         IntegralRule::ForwardEuler, p.dt);
  s.signed_gains = true;
  return s;
}

/// Brett Beauregard's Arduino PID (PID_v1): outputSum += ki h e (and -= kp dInput with
/// proportional on measurement), clamped to [out_min, out_max]; output = kp e (P_ON_E) + outputSum
/// - kd dInput / h, clamped to [out_min, out_max]; dInput = 0 on the first call. reverse: PID_v1's
/// REVERSE direction (the output falls as the error grows): kp, ki, kd negated (signed_gains).
template <typename Scalar>
struct ArduinoPid {
  Scalar kp = 0,       ///< Kp [effort/pos], >= 0 (reverse negates)
      ki = 0,          ///< Ki, per second [effort/(pos s)], >= 0 (reverse negates)
      kd = 0;          ///< Kd, on -dInput / h [effort s/pos], >= 0 (reverse negates)
  Scalar out_min = 0,  ///< lower bound of output and outputSum [effort]
      out_max = 255;   ///< upper bound of output and outputSum [effort]
  bool proportional_on_measurement = false;  ///< P_ON_M: kp acts on dInput, through outputSum
  bool reverse = false;                      ///< REVERSE direction: kp, ki, kd negated
  Scalar sample_time = Scalar(0.1);          ///< [s]
};

/// Arduino's PID_v1 for n joints.
template <typename Scalar, int N = Dynamic, int MaxN = N>
PidSettings<Scalar, N, MaxN> arduino(Eigen::Index n, const ArduinoPid<Scalar>& p) {
  const Scalar sign = p.reverse ? Scalar(-1) : Scalar(1);
  auto s = detail::base<Scalar, N, MaxN>(n, sign * p.kp, sign * p.ki, sign * p.kd,
                                         DerivativeSource::Measurement, IntegralRule::BackwardEuler,
                                         p.sample_time);
  s.signed_gains = p.reverse;
  s.anti_windup = AntiWindup::ITermClamp;
  s.iterm_min.setConstant(p.out_min);
  s.iterm_max.setConstant(p.out_max);
  s.proportional_on_measurement = p.proportional_on_measurement;
  detail::set_bounds(s.limits, p.out_min, p.out_max);
  return s;
}

/// Fixed sizes take N from the type: preset<Scalar, N>(parameters) is preset<Scalar, N>(N,
/// parameters), without repeating the size.
#define CLAW_PRESET_FOR_FIXED_SIZE(name, Result, Parameters)                          \
  template <typename Scalar, int N, int MaxN = N>                                     \
  Result<Scalar, N, MaxN> name(const Parameters<Scalar>& p) {                         \
    static_assert(N != Dynamic, #name ": give the joint count n for a dynamic size"); \
    return name<Scalar, N, MaxN>(N, p);                                               \
  }
CLAW_PRESET_FOR_FIXED_SIZE(mujoco_plugin, PidSettings, MujocoPluginPid)
CLAW_PRESET_FOR_FIXED_SIZE(mujoco_native, PidSettings, MujocoNativePid)
CLAW_PRESET_FOR_FIXED_SIZE(newton_drive_pid, PidSettings, NewtonDrivePid)
CLAW_PRESET_FOR_FIXED_SIZE(newton_drive_pid_implicit, NewtonImplicitDrive, NewtonDrivePid)
CLAW_PRESET_FOR_FIXED_SIZE(control_toolbox, PidSettings, ControlToolboxPid)
CLAW_PRESET_FOR_FIXED_SIZE(control_toolbox_legacy, PidSettings, ControlToolboxPid)
CLAW_PRESET_FOR_FIXED_SIZE(coppeliasim_joint, VelocityServoSettings, CoppeliaSimJoint)
CLAW_PRESET_FOR_FIXED_SIZE(drake, PidSettings, DrakePid)
CLAW_PRESET_FOR_FIXED_SIZE(arduino, PidSettings, ArduinoPid)
#undef CLAW_PRESET_FOR_FIXED_SIZE

}  // namespace presets
}  // namespace claw
