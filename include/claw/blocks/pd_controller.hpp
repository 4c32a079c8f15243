// claw/blocks/pd_controller.hpp: the PD controller block of gym_jiminy (command state integrated at
// the control period, PD torque from the integrated targets, effort clipping) and its bounds
// derivation.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <type_traits>

#include "claw/blocks/pd_kernel.hpp"
#include "claw/core/assert.hpp"
#include "claw/core/fields.hpp"
#include "claw/core/status.hpp"
#include "claw/core/time_step.hpp"
#include "claw/core/types.hpp"
#include "claw/integrators/zoh.hpp"

namespace claw {

/// gym_jiminy's `pd_controller` function, with checks. Per joint j:
///  1. integrate_zoh(command_state, lower, upper, control_dt) (jiminy-compatible mode unless told);
///  2. tau_j = kp_j ((S_p - q) + kd_j (S_v - v)) from the already-integrated targets, where kd is a
///     time constant [s] (the parallel derivative gain is kp kd);
///  3. tau_j <- clip(tau_j, -effort_limit_j, effort_limit_j).
/// q, v: measured positions [rad or m] and velocities; kp [effort/pos], kd [s], effort_limit >= 0.
/// 0 <= control_dt < 1e-9 integrates nothing and still computes the effort (gym_jiminy's reset
/// path). Returns, touching neither state nor out unless said:
///  - SizeMismatch when a vector's size is not the state's column count (every build);
///  - the integrate_zoh statuses (NegativeTimeStep, NonFiniteInput, InvalidBounds);
///  - NonFiniteInput when q or v holds NaN/Inf; InvalidParameter for bad gains or limits;
///  - NumericalOverflow: finite but huge inputs made some joint's integrated state non-finite
///    (that joint keeps its command state, integrate_zoh) or some effort non-finite (that joint
///    keeps its previous `out` value); the other joints are integrated and written.
template <typename DQ, typename DV, typename DState, typename DLower, typename DUpper, typename DKp,
          typename DKd, typename DLim, typename DOut>
Status pd_controller(const Eigen::MatrixBase<DQ>& q, const Eigen::MatrixBase<DV>& v,
                     const Eigen::MatrixBase<DState>& command_state,
                     const Eigen::MatrixBase<DLower>& lower, const Eigen::MatrixBase<DUpper>& upper,
                     const Eigen::MatrixBase<DKp>& kp, const Eigen::MatrixBase<DKd>& kd,
                     const Eigen::MatrixBase<DLim>& effort_limit,
                     typename DState::Scalar control_dt, const Eigen::MatrixBase<DOut>& out,
                     ZohMode mode = ZohMode::JiminyCompatible) noexcept {
  auto& state = const_cast<Eigen::MatrixBase<DState>&>(command_state);
  auto& effort = const_cast<Eigen::MatrixBase<DOut>&>(out);
  const Eigen::Index n = state.cols();
  if (!all_have_size(n, q, v, kp, kd, effort_limit, effort)) return Status::SizeMismatch;
  if (!all_finite(q) || !all_finite(v)) return Status::NonFiniteInput;
  const Status parameter_status = detail::validate_pd_parameters(kp, kd, effort_limit);
  if (parameter_status != Status::Ok) return parameter_status;
  const Status zoh_status = integrate_zoh(state, lower, upper, control_dt, mode);
  if (zoh_status != Status::Ok && zoh_status != Status::NumericalOverflow) return zoh_status;
  Status status = zoh_status;
  for (Eigen::Index j = 0; j < n; ++j) {
    if (!detail::pd_joint_effort(state.coeff(kPosition, j), state.coeff(kVelocity, j), q.coeff(j),
                                 v.coeff(j), kp.coeff(j), kd.coeff(j), effort_limit.coeff(j),
                                 effort.coeffRef(j)))
      status = Status::NumericalOverflow;
  }
  return status;
}

/// Limits of the motors a PdController drives, one entry per motor, in motor units.
template <typename Scalar, int N, int MaxN = N>
struct MotorLimits {
  Vector<Scalar, N, MaxN> position_lower;        ///< lowest motor position [rad or m], may be -inf
  Vector<Scalar, N, MaxN> position_upper;        ///< highest motor position, may be +inf
  Vector<Scalar, N, MaxN> velocity_limit;        ///< |motor velocity| limit [rad/s], may be +inf
  Vector<Scalar, N, MaxN> effort_limit;          ///< |motor effort| limit [N m or N], may be +inf
  Vector<Scalar, N, MaxN> mechanical_reduction;  ///< r: motor motion per joint motion, > 0
};

/// gym_jiminy PDController's options for deriving the command bounds (joint units).
template <typename Scalar>
struct PdBoundsOptions {
  Scalar joint_position_margin = Scalar(0);          ///< distance kept from the position limits
  Scalar joint_velocity_limit = infinity<Scalar>();  ///< further joint velocity limit
  bool infer_acceleration_limit = true;              ///< true: infer amax (gym_jiminy's None)
  Scalar joint_acceleration_limit =
      infinity<Scalar>();  ///< used when infer_acceleration_limit = false
};

/// gym_jiminy PDController's bounds derivation. Per motor with reduction r:
///   position  [lower + r margin, upper - r margin];
///   velocity  +-vmax, vmax = min(motor velocity limit, r joint_velocity_limit);
///   acceleration +-amax with, when inferred,
///     amax = min(2 vmax / step_dt, effort_limit / ((kp step_dt) max(step_dt, kd))),
///   otherwise amax = r joint_acceleration_limit (not min'ed with anything).
/// step_dt [s] is the agent's step (the adapter's period). kp = 0 makes the effort term +inf.
/// Bounds with lower > upper (a margin wider than half the range) are returned as computed, like
/// gym_jiminy does; PdController refuses them (validate_state_bounds).
/// InvalidParameter: step_dt not a valid setting (valid_time_step_setting), NaN anywhere, a
/// reduction <= 0, or a derived bound that is NaN (kp = 0 with a zero effort limit).
template <typename Scalar, int N, int MaxN, typename DKp, typename DKd>
Status derive_pd_command_bounds(const MotorLimits<Scalar, N, MaxN>& motors,
                                const Eigen::MatrixBase<DKp>& kp, const Eigen::MatrixBase<DKd>& kd,
                                Scalar step_dt, const PdBoundsOptions<Scalar>& options,
                                StateBounds<Scalar, N, MaxN>& bounds) {
  const Eigen::Index n = motors.position_lower.size();
  if (motors.position_upper.size() != n || motors.velocity_limit.size() != n ||
      motors.effort_limit.size() != n || motors.mechanical_reduction.size() != n ||
      kp.size() != n || kd.size() != n)
    return Status::SizeMismatch;
  if (!valid_time_step_setting(step_dt)) return Status::InvalidParameter;
  if (std::isnan(options.joint_position_margin) || std::isnan(options.joint_velocity_limit) ||
      std::isnan(options.joint_acceleration_limit))
    return Status::InvalidParameter;
  if (!none_nan(motors.position_lower) || !none_nan(motors.position_upper) ||
      !none_nan(motors.velocity_limit) || !none_nan(motors.effort_limit) || !none_nan(kp) ||
      !none_nan(kd))
    return Status::InvalidParameter;
  for (Eigen::Index j = 0; j < n; ++j)
    if (!(motors.mechanical_reduction.coeff(j) > Scalar(0)) ||
        !std::isfinite(motors.mechanical_reduction.coeff(j)))
      return Status::InvalidParameter;

  StateBounds<Scalar, N, MaxN> result;
  result.lower.resize(3, n);
  result.upper.resize(3, n);
  for (Eigen::Index j = 0; j < n; ++j) {
    const Scalar r = motors.mechanical_reduction.coeff(j);
    const Scalar v_joint = r * options.joint_velocity_limit;
    const Scalar v_motor = motors.velocity_limit.coeff(j);
    const Scalar v_max = (v_joint < v_motor) ? v_joint : v_motor;  // Python min(motor, joint)
    Scalar a_max;
    if (options.infer_acceleration_limit) {
      const Scalar range_limit = Scalar(2) * v_max / step_dt;
      const Scalar kd_j = kd.coeff(j);
      const Scalar horizon = (step_dt < kd_j) ? kd_j : step_dt;  // max(step_dt, kd)
      const Scalar effort_limit = motors.effort_limit.coeff(j) / (kp.coeff(j) * step_dt * horizon);
      a_max = (effort_limit < range_limit) ? effort_limit : range_limit;
      if (std::isnan(effort_limit)) a_max = effort_limit;  // numpy.minimum propagates NaN
    } else {
      a_max = r * options.joint_acceleration_limit;
    }
    if (std::isnan(a_max)) return Status::InvalidParameter;
    result.lower(kPosition, j) = motors.position_lower.coeff(j) + r * options.joint_position_margin;
    result.upper(kPosition, j) = motors.position_upper.coeff(j) - r * options.joint_position_margin;
    result.lower(kVelocity, j) = -v_max;
    result.upper(kVelocity, j) = v_max;
    result.lower(kAcceleration, j) = -a_max;
    result.upper(kAcceleration, j) = a_max;
  }
  bounds = result;
  return Status::Ok;
}

/// gym_jiminy's initial command state: position and velocity rows are 0 clipped into the bounds
/// (with lower > upper the upper bound), acceleration 0.
template <typename Scalar, int N, int MaxN>
StateMatrix<Scalar, N, MaxN> initial_command_state(const StateBounds<Scalar, N, MaxN>& bounds) {
  StateMatrix<Scalar, N, MaxN> state(3, bounds.lower.cols());
  for (Eigen::Index j = 0; j < bounds.lower.cols(); ++j) {
    state(kPosition, j) = clip(Scalar(0), bounds.lower(kPosition, j), bounds.upper(kPosition, j));
    state(kVelocity, j) = clip(Scalar(0), bounds.lower(kVelocity, j), bounds.upper(kVelocity, j));
    state(kAcceleration, j) = Scalar(0);
  }
  return state;
}

/// gym_jiminy's encoder-to-motor map: encoder j measures motor encoder_motor_index[j], and the
/// map gym_jiminy builds is map[j] = encoder_motor_index[j] (it then reads encoder_data[:, map];
/// note this is the permutation itself, not its inverse). `is_identity` tells whether no reordering
/// is needed. InvalidParameter unless encoder_motor_index is a permutation of 0..n-1.
template <typename DIndex, typename DMap>
Status encoder_to_motor_map(const Eigen::MatrixBase<DIndex>& encoder_motor_index,
                            const Eigen::MatrixBase<DMap>& map_out, bool& is_identity) noexcept {
  auto& map = const_cast<Eigen::MatrixBase<DMap>&>(map_out);
  const Eigen::Index n = encoder_motor_index.size();
  if (map.size() != n) return Status::SizeMismatch;
  for (Eigen::Index j = 0; j < n; ++j) {
    const auto motor = encoder_motor_index.coeff(j);
    if (motor < 0 || motor >= n) return Status::InvalidParameter;
    for (Eigen::Index i = 0; i < j; ++i)
      if (encoder_motor_index.coeff(i) == motor) return Status::InvalidParameter;
  }
  is_identity = true;
  for (Eigen::Index j = 0; j < n; ++j) {
    map.coeffRef(j) = encoder_motor_index.coeff(j);
    if (encoder_motor_index.coeff(j) != j) is_identity = false;
  }
  return Status::Ok;
}

/// PD controller block: owns the command state S = [p*; v*; a*] (3xN) and its bounds, and every
/// control period h (control_dt) turns a target acceleration into motor efforts:
///   a* <- target acceleration;  S <- integrate_zoh(S, h);
///   tau = kp ((p* - q) + kd (v* - v));  tau <- clip(tau, -effort_limit, effort_limit).
/// kd is a time constant [s] (parallel derivative gain kp kd), as in gym_jiminy.
/// Template sizes follow core/types.hpp (fixed N, bounded MaxN, dynamic); a batch of robots is
/// one long vector. Hot calls (update, reset, setters) allocate nothing and are noexcept; they
/// return SizeMismatch, touching nothing, for vectors whose size is not size() or a block of size
/// 0.
template <typename Scalar_, int N_ = Dynamic, int MaxN_ = N_>
class PdController {
 public:
  using Scalar = Scalar_;                             ///< the scalar type (float or double)
  using VectorType = Vector<Scalar, N_, MaxN_>;       ///< a vector of n joints
  using StateType = StateMatrix<Scalar, N_, MaxN_>;   ///< a 3 x n command state [p; v; a]
  using BoundsType = StateBounds<Scalar, N_, MaxN_>;  ///< lower and upper bounds of a StateType
  static constexpr Eigen::Index kDefaultSize = (N_ == Dynamic) ? 0 : N_;  ///< N (0 if Dynamic)
  using State = StateType;  ///< the command state S: all the block carries between periods
  static constexpr const char* kCommandQuantity = "commandEffort";  ///< tau, for logging

  /// Settings of the block. Valid when: bounds pass validate_state_bounds(mode); kp >= 0 and
  /// kd >= 0 finite; effort_limit >= 0 (may be +inf); control_dt >= CLAW_MIN_TIME_STEP finite.
  /// Defaults (fixed sizes; dynamic ones start empty): unbounded state, zero gains, no effort
  /// limit (+inf).
  struct Settings {
    BoundsType bounds = {StateType::Constant(3, kDefaultSize, -infinity<Scalar>()),
                         StateType::Constant(3, kDefaultSize, infinity<Scalar>())};  ///< S's bounds
    VectorType kp = VectorType::Zero(kDefaultSize);  ///< position gain [effort/pos]
    VectorType kd = VectorType::Zero(kDefaultSize);  ///< derivative time constant [s]
    VectorType effort_limit =                        ///< |tau| limit [effort], +inf: none
        VectorType::Constant(kDefaultSize, infinity<Scalar>());
    Scalar control_dt = Scalar(0.001);         ///< control period h [s]
    ZohMode mode = ZohMode::JiminyCompatible;  ///< integrate_zoh's mode
  };

  /// Fixed size: N joints. Bounded / dynamic: call the size constructor.
  PdController() : PdController(N_ == Dynamic ? 0 : N_) {}

  /// A block for n joints (allocates here for dynamic sizes, never afterwards). Until configure()
  /// succeeds the gains and state are zero, the bounds and effort limits infinite.
  explicit PdController(Eigen::Index n) {
    CLAW_ASSERT(N_ == Dynamic || n == N_, "PdController: size differs from the fixed size");
    CLAW_ASSERT(MaxN_ == Dynamic || n <= MaxN_, "PdController: size above MaxN");
    settings_.bounds.lower.setConstant(3, n, -infinity<Scalar>());
    settings_.bounds.upper.setConstant(3, n, infinity<Scalar>());
    settings_.kp.setZero(n);
    settings_.kd.setZero(n);
    settings_.effort_limit.setConstant(n, infinity<Scalar>());
    state_.setZero(3, n);
    fast_inverse_.resize(n);
    refresh_fast_inverse();
  }

  /// Number of joints.
  Eigen::Index size() const noexcept { return state_.cols(); }

  /// Validates and installs all settings; on failure keeps the previous ones and returns why
  /// (SizeMismatch, InvalidBounds, InvalidParameter). The command state is clipped into the new
  /// bounds (position and velocity rows).
  Status configure(const Settings& settings) noexcept {
    const Eigen::Index n = size();
    if (settings.bounds.lower.cols() != n || settings.bounds.upper.cols() != n ||
        settings.kp.size() != n || settings.kd.size() != n || settings.effort_limit.size() != n)
      return Status::SizeMismatch;
    const Status bounds_status =
        validate_state_bounds(settings.bounds.lower, settings.bounds.upper, settings.mode);
    if (bounds_status != Status::Ok) return bounds_status;
    const Status parameter_status =
        detail::validate_pd_parameters(settings.kp, settings.kd, settings.effort_limit);
    if (parameter_status != Status::Ok) return parameter_status;
    if (!valid_time_step_setting(settings.control_dt)) return Status::InvalidParameter;
    settings_ = settings;
    refresh_fast_inverse();
    clip_command_state_into_bounds();
    return Status::Ok;
  }

  /// Real-time-safe gain change (kp [effort/pos], kd [s]); keeps the old gains on failure.
  template <typename DKp, typename DKd>
  Status set_gains(const Eigen::MatrixBase<DKp>& kp, const Eigen::MatrixBase<DKd>& kd) noexcept {
    if (kp.size() != size() || kd.size() != size()) return Status::SizeMismatch;
    const Status status = detail::validate_pd_parameters(kp, kd, settings_.effort_limit);
    if (status != Status::Ok) return status;
    settings_.kp = kp;
    settings_.kd = kd;
    return Status::Ok;
  }

  /// Real-time-safe effort limit change (>= 0, may be +inf); keeps the old one on failure.
  template <typename DLim>
  Status set_effort_limit(const Eigen::MatrixBase<DLim>& effort_limit) noexcept {
    if (effort_limit.size() != size()) return Status::SizeMismatch;
    const Status status = detail::validate_pd_parameters(settings_.kp, settings_.kd, effort_limit);
    if (status != Status::Ok) return status;
    settings_.effort_limit = effort_limit;
    return Status::Ok;
  }

  /// Bumpless start (gym_jiminy's behaviour while the simulation is not running): the command
  /// position and velocity become the measured ones clipped into the bounds, the command
  /// acceleration becomes 0, and `out` gets the effort of the PD law with no integration.
  /// NonFiniteInput (nothing touched) when q or v holds NaN/Inf.
  template <typename DQ, typename DV, typename DOut>
  Status reset(const Eigen::MatrixBase<DQ>& q, const Eigen::MatrixBase<DV>& v,
               const Eigen::MatrixBase<DOut>& out) noexcept {
    if (size() == 0 || !all_have_size(size(), q, v, out)) return Status::SizeMismatch;
    if (!all_finite(q) || !all_finite(v)) return Status::NonFiniteInput;
    auto& effort = const_cast<Eigen::MatrixBase<DOut>&>(out);
    Status status = Status::Ok;
    for (Eigen::Index j = 0; j < size(); ++j)
      if (!restart_joint(j, q.coeff(j), v.coeff(j), effort.coeffRef(j)))
        status = Status::NumericalOverflow;
    return status;
  }

  /// reset(q, v, out) for the joints where `selected` is true (one bool per joint: the robots of a
  /// batch whose episodes ended): their command state from q, v (clipped), a* = 0, and their entry
  /// of out the PD effort; every other joint's state and out entry untouched, bit for bit.
  /// SizeMismatch or NonFiniteInput (a NaN/Inf q or v of a selected joint): nothing touched.
  template <typename DM, typename DQ, typename DV, typename DOut>
  Status reset_joints(const Eigen::DenseBase<DM>& selected, const Eigen::MatrixBase<DQ>& q,
                      const Eigen::MatrixBase<DV>& v, const Eigen::MatrixBase<DOut>& out) noexcept {
    if (size() == 0 || selected.size() != size() || !all_have_size(size(), q, v, out))
      return Status::SizeMismatch;
    for (Eigen::Index j = 0; j < size(); ++j)
      if (selected.coeff(j) && !(std::isfinite(q.coeff(j)) && std::isfinite(v.coeff(j))))
        return Status::NonFiniteInput;
    auto& effort = const_cast<Eigen::MatrixBase<DOut>&>(out);
    Status status = Status::Ok;
    for (Eigen::Index j = 0; j < size(); ++j)
      if (selected.coeff(j) && !restart_joint(j, q.coeff(j), v.coeff(j), effort.coeffRef(j)))
        status = Status::NumericalOverflow;
    return status;
  }

  /// One control period: a* <- target_acceleration, integrate S over control_dt, PD effort into
  /// out. NonFiniteInput (nothing touched, out held) when q, v or the target holds NaN/Inf;
  /// NumericalOverflow when huge finite inputs overflow a joint's integrated state (that joint's
  /// command state is held as it was) or its effort (that joint's out is held).
  /// Jiminy mode runs detail::zoh_joint_jiminy_fast (bit-identical to zoh_joint_jiminy, one
  /// division per joint in the common case); when q, v, the target and out are unit-stride vectors
  /// and out shares no memory with the others or the command state, through a vectorisable loop
  /// over plain arrays (detail::pd_jiminy_contiguous), else joint by joint.
  template <typename DQ, typename DV, typename DA, typename DOut>
  Status update(const Eigen::MatrixBase<DQ>& q, const Eigen::MatrixBase<DV>& v,
                const Eigen::MatrixBase<DA>& target_acceleration,
                const Eigen::MatrixBase<DOut>& out) noexcept {
    if (size() == 0 || !all_have_size(size(), q, v, target_acceleration, out))
      return Status::SizeMismatch;
    if (!detail::vectors_all_finite(q, v, target_acceleration)) return Status::NonFiniteInput;
    auto& effort = const_cast<Eigen::MatrixBase<DOut>&>(out);
    const Scalar dt = settings_.control_dt;
    const auto& lo = settings_.bounds.lower;
    const auto& hi = settings_.bounds.upper;
    const auto& kp = settings_.kp;
    const auto& kd = settings_.kd;
    const auto& limit = settings_.effort_limit;
    Status status = Status::Ok;
    const Eigen::Index n = size();
    if (settings_.mode == ZohMode::JiminyCompatible) {
      if constexpr (detail::kJiminyFastSupported<Scalar> && detail::has_direct_access<DQ>() &&
                    detail::has_direct_access<DV>() && detail::has_direct_access<DA>() &&
                    detail::has_direct_access<DOut>() &&
                    (int(DOut::Flags) & Eigen::LvalueBit) != 0) {
        if (n > 0 && contiguous_and_unaliased(q, v, target_acceleration, effort)) {
          const bool overflow = detail::pd_jiminy_contiguous<N_>(
              n, dt, lo.row(kPosition).data(), lo.row(kVelocity).data(),
              lo.row(kAcceleration).data(), hi.row(kPosition).data(), hi.row(kVelocity).data(),
              hi.row(kAcceleration).data(), fast_inverse_.data(), kp.data(), kd.data(),
              limit.data(), q.derived().data(), v.derived().data(),
              target_acceleration.derived().data(), state_.row(kPosition).data(),
              state_.row(kVelocity).data(), state_.row(kAcceleration).data(),
              effort.derived().data());
          return overflow ? Status::NumericalOverflow : Status::Ok;
        }
      }
      for (Eigen::Index j = 0; j < n; ++j) {
        Scalar& p = state_(kPosition, j);
        Scalar& w = state_(kVelocity, j);
        Scalar& a = state_(kAcceleration, j);
        const Scalar a_before = a;
        a = target_acceleration.coeff(j);
        const auto b = detail::joint_bounds(lo, hi, j);
        const Scalar inverse = fast_inverse_.coeff(j);
        if (!detail::zoh_joint_or_hold(p, w, a, [&](Scalar& pj, Scalar& wj, Scalar& aj) {
              detail::zoh_joint_jiminy_fast(pj, wj, aj, b, dt, inverse);
            })) {
          a = a_before;  // the whole state held, as before the call
          status = Status::NumericalOverflow;
        }
        if (!detail::pd_joint_effort(p, w, q.coeff(j), v.coeff(j), kp.coeff(j), kd.coeff(j),
                                     limit.coeff(j), effort.coeffRef(j)))
          status = Status::NumericalOverflow;
      }
    } else {
      for (Eigen::Index j = 0; j < n; ++j) {
        Scalar& p = state_(kPosition, j);
        Scalar& w = state_(kVelocity, j);
        Scalar& a = state_(kAcceleration, j);
        const Scalar a_before = a;
        a = target_acceleration.coeff(j);
        const auto b = detail::joint_bounds(lo, hi, j);
        if (!detail::zoh_joint_or_hold(p, w, a, [&](Scalar& pj, Scalar& wj, Scalar& aj) {
              detail::zoh_joint_viable(pj, wj, aj, b, dt);
            })) {
          a = a_before;  // the whole state held, as before the call
          status = Status::NumericalOverflow;
        }
        if (!detail::pd_joint_effort(p, w, q.coeff(j), v.coeff(j), kp.coeff(j), kd.coeff(j),
                                     limit.coeff(j), effort.coeffRef(j)))
          status = Status::NumericalOverflow;
      }
    }
    return status;
  }

  /// The PD effort from the current command state, without integrating (control_dt = 0).
  template <typename DQ, typename DV, typename DOut>
  Status compute_effort(const Eigen::MatrixBase<DQ>& q, const Eigen::MatrixBase<DV>& v,
                        const Eigen::MatrixBase<DOut>& out) const noexcept {
    if (size() == 0 || !all_have_size(size(), q, v, out)) return Status::SizeMismatch;
    if (!all_finite(q) || !all_finite(v)) return Status::NonFiniteInput;
    auto& effort = const_cast<Eigen::MatrixBase<DOut>&>(out);
    Status status = Status::Ok;
    for (Eigen::Index j = 0; j < size(); ++j)
      if (!detail::pd_joint_effort(state_(kPosition, j), state_(kVelocity, j), q.coeff(j),
                                   v.coeff(j), settings_.kp.coeff(j), settings_.kd.coeff(j),
                                   settings_.effort_limit.coeff(j), effort.coeffRef(j)))
        status = Status::NumericalOverflow;
    return status;
  }

  /// Replaces the command state (e.g. to resume); NonFiniteInput if it holds NaN/Inf.
  /// It is not clipped: a state outside the bounds is brought back by the integrator.
  template <typename DState>
  Status set_command_state(const Eigen::MatrixBase<DState>& state) noexcept {
    if (state.rows() != 3 || state.cols() != size()) return Status::SizeMismatch;
    if (!all_finite(state)) return Status::NonFiniteInput;
    state_ = state;
    return Status::Ok;
  }

  /// The command state S = [p*; v*; a*] after the last call.
  const StateType& command_state() const noexcept { return state_; }
  const State& state() const noexcept { return state_; }  ///< snapshot (rollback, checkpoints): S
  /// Restores a snapshot bit for bit, refusing it as set_command_state() does.
  Status set_state(const State& snapshot) noexcept { return set_command_state(snapshot); }
  static constexpr int state_quantity_count() noexcept { return 3; }  ///< 3: the rows of S
  /// Logging (core/fields.hpp): row q of S, named as gym_jiminy's PD controller names it.
  static StateQuantity state_quantity(int q) noexcept {
    constexpr const char* kNames[3] = {"currentTargetPosition", "currentTargetVelocity",
                                       "currentTargetAcceleration"};
    return {kNames[q], -1};
  }
  /// S(q, j): row q of S at joint j.
  Scalar state_value(int q, Eigen::Index j) const noexcept { return state_.coeff(q, j); }
  /// Writable command state, for adapters (PdAdapter's instantaneous mode). Keep it finite.
  StateType& mutable_command_state() noexcept { return state_; }
  /// The installed settings.
  const Settings& settings() const noexcept { return settings_; }

 private:
  /// Whether update() may run over plain arrays: q, v, target and out unit-stride, and out sharing
  /// no memory with q, v, target or the command state (which it would write while they are read).
  template <typename DQ, typename DV, typename DA, typename DOut>
  bool contiguous_and_unaliased(const Eigen::MatrixBase<DQ>& q, const Eigen::MatrixBase<DV>& v,
                                const Eigen::MatrixBase<DA>& target,
                                const Eigen::MatrixBase<DOut>& out) const noexcept {
    if (!detail::is_unit_stride(q) || !detail::is_unit_stride(v) ||
        !detail::is_unit_stride(target) || !detail::is_unit_stride(out))
      return false;
    const Eigen::Index n = size();
    const Scalar* o = out.derived().data();
    const Scalar* s = state_.data();
    for (const Scalar* input : {q.derived().data(), v.derived().data(), target.derived().data()})
      if (detail::spans_overlap(o, n, input, n) || detail::spans_overlap(s, 3 * n, input, n))
        return false;
    return !detail::spans_overlap(o, n, s, 3 * n);
  }

  /// detail::jiminy_fast_inverse of every joint, for zoh_joint_jiminy_fast (bounds or dt changed).
  void refresh_fast_inverse() noexcept {
    for (Eigen::Index j = 0; j < size(); ++j)
      fast_inverse_(j) = detail::jiminy_fast_inverse(settings_.bounds.upper(kAcceleration, j),
                                                     settings_.control_dt);
  }

  void clip_command_state_into_bounds() noexcept {
    for (Eigen::Index j = 0; j < size(); ++j)
      for (int row : {int(kPosition), int(kVelocity)})
        state_(row, j) =
            clip(state_(row, j), settings_.bounds.lower(row, j), settings_.bounds.upper(row, j));
  }

  // Joint j's bumpless start: p*, v* <- q, v clipped into the bounds, a* <- 0, and its PD effort
  // into out_j (false, out_j held, on overflow).
  bool restart_joint(Eigen::Index j, Scalar q, Scalar v, Scalar& out_j) noexcept {
    const auto& lo = settings_.bounds.lower;
    const auto& hi = settings_.bounds.upper;
    state_(kPosition, j) = clip(q, lo(kPosition, j), hi(kPosition, j));
    state_(kVelocity, j) = clip(v, lo(kVelocity, j), hi(kVelocity, j));
    state_(kAcceleration, j) = Scalar(0);
    return detail::pd_joint_effort(state_(kPosition, j), state_(kVelocity, j), q, v,
                                   settings_.kp.coeff(j), settings_.kd.coeff(j),
                                   settings_.effort_limit.coeff(j), out_j);
  }

  Settings settings_;
  StateType state_;
  VectorType fast_inverse_;  ///< jiminy_fast_inverse(amax_j, control_dt), one per joint
};

using PdController7d = PdController<double, 7>;
using PdController7f = PdController<float, 7>;
using PdControllerXd = PdController<double, Dynamic>;
using PdControllerXf = PdController<float, Dynamic>;

}  // namespace claw
