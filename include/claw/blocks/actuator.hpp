// claw/blocks/actuator.hpp: Actuator, the pipeline of a simulated drive per joint, as Newton's
// Actuator: command delay -> PID drive -> output clamps (effort / DC-motor envelope, position
// table).
#pragma once

#include <Eigen/Core>

#include "claw/core/fields.hpp"
#include "claw/core/status.hpp"
#include "claw/core/types.hpp"
#include "claw/laws/delay_line.hpp"
#include "claw/laws/effort_clamp.hpp"
#include "claw/laws/pid.hpp"
#include "claw/laws/position_effort_limit.hpp"

namespace claw {

/// Per joint, in this order: the commands (q*, and v* and ff in the full form) delayed by D control
/// steps (DelayLine); the Pid on the delayed commands and the current q, v (its own limits are the
/// ones its anti-windup sees); then the output clamps the drive does not see, as Newton's clamping
/// list: `output_limits` (EffortLimits: a maximum effort, bounds, or the DC-motor envelope at v),
/// then the position table (PositionEffortLimit at q). The result equals these steps written by
/// hand, bit for bit (test `Actuator equals its composition written by hand`). Hot calls are
/// noexcept and allocate nothing; NaN/Inf inputs are refused (NonFiniteInput) with nothing touched.
template <typename Scalar_, int N_ = Dynamic, int MaxN_ = N_, int MaxDelay_ = 8, int MaxPoints_ = 8>
class Actuator {
 public:
  using Scalar = Scalar_;                        ///< the scalar type (float or double)
  using VectorType = Vector<Scalar, N_, MaxN_>;  ///< a vector of n joints
  using Drive = Pid<Scalar, N_, MaxN_>;          ///< the drive: a Pid on the delayed commands
  using Delay = DelayLine<Scalar, N_, MaxN_, MaxDelay_>;  ///< one command's delay line
  /// The position table: |u| <= L(q) per joint.
  using PositionLimit = PositionEffortLimit<Scalar, N_, MaxN_, MaxPoints_>;
  static constexpr const char* kCommandQuantity = "commandEffort";  ///< out, for logging

  /// Everything the pipeline carries between periods: the drive's state and the three delay
  /// lines' pending commands (the clamps keep none).
  struct State {
    typename Drive::State drive;   ///< the drive's PidState
    typename Delay::State target,  ///< the q* line's pending commands
        target_velocity,           ///< the v* line's
        feedforward;               ///< the ff line's
  };

  Actuator() : Actuator(N_ == Dynamic ? 0 : N_) {}

  /// n joints: no delay, a zero-gain PID, no clamps (allocates here for dynamic sizes).
  explicit Actuator(Eigen::Index n)
      : drive_(n),
        delays_{Delay(n), Delay(n), Delay(n)},
        position_limit_(n),
        target_(VectorType::Zero(n)),
        target_velocity_(VectorType::Zero(n)),
        feedforward_(VectorType::Zero(n)) {
    output_limits_.resize(n);
  }

  Eigen::Index size() const noexcept { return drive_.size(); }  ///< joint count n

  /// Installs the delay (0 ..= MaxDelay steps; the lines restart empty) and the output limits
  /// (validate_effort_limits), all or nothing: InvalidParameter / SizeMismatch keep the old ones.
  /// The drive and the position table are configured through drive() and position_limit().
  Status configure(Eigen::Index delay_steps,
                   const EffortLimits<Scalar, N_, MaxN_>& output_limits) noexcept {
    if (size() == 0) return Status::SizeMismatch;
    if (delay_steps < 0 || delay_steps > MaxDelay_) return Status::InvalidParameter;
    const Status limits = validate_effort_limits(output_limits, size());
    if (limits != Status::Ok) return limits;
    for (Delay& line : delays_) (void)line.set_delay(delay_steps);
    output_limits_ = output_limits;
    return Status::Ok;
  }

  /// The drive, to configure (PidSettings: gains, options and its own limits).
  Drive& drive() noexcept { return drive_; }
  const Drive& drive() const noexcept { return drive_; }  ///< the drive
  /// The position table L(q), to configure.
  PositionLimit& position_limit() noexcept { return position_limit_; }
  const PositionLimit& position_limit() const noexcept { return position_limit_; }  ///< the table
  /// The clamp after the drive (EffortLimits at v), installed by configure().
  const EffortLimits<Scalar, N_, MaxN_>& output_limits() const noexcept { return output_limits_; }
  Eigen::Index delay() const noexcept { return delays_[0].delay(); }  ///< D [control steps]

  /// Restarts everything: the drive (Pid::reset) and the delay lines, empty: for the next D steps
  /// the drive sees q* = 0, v* = 0, ff = 0 (reset(held_target) holds a target instead).
  void reset() noexcept {
    drive_.reset();
    for (Delay& line : delays_) line.reset();
  }

  /// reset(), with the q* line holding `held_target` (e.g. the measured q, so that the first D
  /// steps hold the joints where they are). SizeMismatch / NonFiniteInput: nothing touched.
  template <typename DT>
  Status reset(const Eigen::MatrixBase<DT>& held_target) noexcept {
    if (size() == 0 || held_target.size() != size()) return Status::SizeMismatch;
    if (!all_finite(held_target)) return Status::NonFiniteInput;
    reset();
    return delays_[0].reset(held_target);
  }

  /// Restarts the joints where `selected` is true (drive and delay lines, empty as in reset()),
  /// the others untouched.
  template <typename DM>
  Status reset_joints(const Eigen::DenseBase<DM>& selected) noexcept {
    if (size() == 0 || selected.size() != size()) return Status::SizeMismatch;
    for (Delay& line : delays_) (void)line.reset_joints(selected);
    return drive_.reset_joints(selected);
  }

  /// As above, the selected joints' q* lines holding `held_target`. SizeMismatch /
  /// NonFiniteInput (a selected joint's held target): nothing touched.
  template <typename DM, typename DT>
  Status reset_joints(const Eigen::DenseBase<DM>& selected,
                      const Eigen::MatrixBase<DT>& held_target) noexcept {
    if (size() == 0 || selected.size() != size() || held_target.size() != size())
      return Status::SizeMismatch;
    const Status held = delays_[0].reset_joints(selected, held_target);
    if (held != Status::Ok) return held;
    for (Eigen::Index k = 1; k < 3; ++k) (void)delays_[k].reset_joints(selected);
    return drive_.reset_joints(selected);
  }

  /// Restarts joints begin .. begin + count - 1 (one robot of a batch) as reset_joints(mask).
  Status reset_joints(Eigen::Index begin, Eigen::Index count) noexcept {
    if (!range_within(begin, count, size())) return Status::SizeMismatch;
    for (Delay& line : delays_) (void)line.reset_joints(begin, count);
    return drive_.reset_joints(begin, count);
  }

  /// Snapshot (rollback, checkpoints), a copy (allocates for dynamic sizes); copy_state() fills
  /// one of this size without allocating. set_state() restores the pipeline bit for bit.
  State state() const {
    State snapshot;
    copy_state(snapshot);
    return snapshot;
  }
  /// state() into snapshot; allocates nothing when snapshot already has this size.
  void copy_state(State& snapshot) const noexcept {
    snapshot.drive = drive_.state();
    snapshot.target = delays_[0].state();
    snapshot.target_velocity = delays_[1].state();
    snapshot.feedforward = delays_[2].state();
  }
  /// Restores a snapshot, all or nothing: refused as Pid::set_state and DelayLine::set_state
  /// refuse their parts.
  Status set_state(const State& snapshot) noexcept {
    const typename Delay::State* lines[3] = {&snapshot.target, &snapshot.target_velocity,
                                             &snapshot.feedforward};
    for (int k = 0; k < 3; ++k) {
      const Status line = delays_[k].accepts_state(*lines[k]);
      if (line != Status::Ok) return line;
    }
    const Status drive_status = drive_.set_state(snapshot.drive);
    if (drive_status != Status::Ok) return drive_status;
    for (int k = 0; k < 3; ++k) (void)delays_[k].set_state(*lines[k]);
    return Status::Ok;
  }
  /// Logging (core/fields.hpp): the drive's quantities, then each line's pending commands by slot.
  int state_quantity_count() const noexcept {
    return Drive::state_quantity_count() + 3 * static_cast<int>(delay());
  }
  /// Logged quantity q: the drive's below Drive::state_quantity_count(), then pendingTarget,
  /// pendingTargetVelocity and pendingFeedforward, each for slots 0 .. D-1 (0: the next out).
  StateQuantity state_quantity(int q) const noexcept {
    constexpr const char* kLines[3] = {"pendingTarget", "pendingTargetVelocity",
                                       "pendingFeedforward"};
    if (q < Drive::state_quantity_count()) return Drive::state_quantity(q);
    return {kLines[line_of(q)], slot_of(q)};
  }
  /// Joint j's value of quantity q: the drive's, or a line's pending command (DelayLine::pending).
  Scalar state_value(int q, Eigen::Index j) const noexcept {
    if (q < Drive::state_quantity_count()) return drive_.state_value(q, j);
    return delays_[line_of(q)].pending(slot_of(q), j);
  }

  /// One control period with v* = 0 and ff = 0: only the q* line advances (the v* and ff lines keep
  /// their commands for the next full update), so use one form per actuator.
  template <typename DT, typename DQ, typename DV, typename DOut>
  Status update(const Eigen::MatrixBase<DT>& target, const Eigen::MatrixBase<DQ>& q,
                const Eigen::MatrixBase<DV>& v, const Eigen::MatrixBase<DOut>& out) noexcept {
    if (size() == 0 || !all_have_size(size(), target, q, v, out)) return Status::SizeMismatch;
    if constexpr (detail::all_contiguous<DT, DQ, DV, DOut>()) {
      if (fusable(out, target, q, v)) return update_fused<false>(target, target, target, q, v, out);
    }
    // Each stage checks its own inputs; the line is taken back when the drive refuses q or v.
    const Status delayed = delays_[0].update_into_scratch(target, target_);
    if (delayed != Status::Ok) return delayed;
    const Status driven = drive_.update(target_, q, v, out);
    if (driven == Status::NonFiniteInput) delays_[0].revert(target_);
    return driven == Status::NonFiniteInput ? driven : finish(driven, q, v, out);
  }

  /// One control period with target velocity v* [pos/s] and feedforward ff [effort], all delayed.
  template <typename DT, typename DTV, typename DFF, typename DQ, typename DV, typename DOut>
  Status update(const Eigen::MatrixBase<DT>& target, const Eigen::MatrixBase<DTV>& target_velocity,
                const Eigen::MatrixBase<DFF>& feedforward, const Eigen::MatrixBase<DQ>& q,
                const Eigen::MatrixBase<DV>& v, const Eigen::MatrixBase<DOut>& out) noexcept {
    if (size() == 0 || !all_have_size(size(), target, target_velocity, feedforward, q, v, out))
      return Status::SizeMismatch;
    if constexpr (detail::all_contiguous<DT, DTV, DFF, DQ, DV, DOut>()) {
      if (fusable(out, target, target_velocity, feedforward, q, v))
        return update_fused<true>(target, target_velocity, feedforward, q, v, out);
    }
    // Each line checks its input as it moves it; a refusal takes back the lines that ran.
    Status status = delays_[0].update_into_scratch(target, target_);
    int advanced = status == Status::Ok ? 1 : 0;
    if (advanced == 1) {
      status = delays_[1].update_into_scratch(target_velocity, target_velocity_);
      advanced += status == Status::Ok ? 1 : 0;
    }
    if (advanced == 2) {
      status = delays_[2].update_into_scratch(feedforward, feedforward_);
      advanced += status == Status::Ok ? 1 : 0;
    }
    if (advanced == 3) {
      status = drive_.update(target_, target_velocity_, feedforward_, q, v, out);
      if (status != Status::NonFiniteInput) return finish(status, q, v, out);
    }
    VectorType* delayed[3] = {&target_, &target_velocity_, &feedforward_};
    for (int k = advanced - 1; k >= 0; --k) delays_[k].revert(*delayed[k]);
    return status;
  }

 private:
  // Logged quantity q past the drive's: line (q - drive's count) / D, slot (q - drive's count) % D.
  int line_of(int q) const noexcept {
    return (q - Drive::state_quantity_count()) / static_cast<int>(delay());
  }
  int slot_of(int q) const noexcept {
    return (q - Drive::state_quantity_count()) % static_cast<int>(delay());
  }

  // The one-pass form of either update: the drive on its simple path, and out apart from every
  // input (contiguous vectors of size() entries each, the sizes checked).
  template <typename DOut, typename... Inputs>
  bool fusable(const Eigen::MatrixBase<DOut>& out, const Inputs&... inputs) const noexcept {
    const Scalar* begin = out.derived().data();
    const auto apart = [&](const Scalar* input) {
      return input + size() <= begin || begin + size() <= input;
    };
    return drive_.on_simple_path() && (apart(inputs.derived().data()) && ...);
  }

  // Both updates in one pass over memory, equal to the composition (the test of the class
  // comment): the lines' slots exchanged as the drive reads its commands (detail::DelayedCommand),
  // the DC-motor envelope applied as it writes (detail::DcMotorStage), the other clamps after.
  // Nothing is touched before every input is known finite.
  template <bool kFull, typename DT, typename DTV, typename DFF, typename DQ, typename DV,
            typename DOut>
  Status update_fused(const Eigen::MatrixBase<DT>& target,
                      const Eigen::MatrixBase<DTV>& target_velocity,
                      const Eigen::MatrixBase<DFF>& feedforward, const Eigen::MatrixBase<DQ>& q,
                      const Eigen::MatrixBase<DV>& v, const Eigen::MatrixBase<DOut>& out) noexcept {
    if (!detail::pid_inputs_finite<kFull>(target, target_velocity, feedforward, q, v))
      return Status::NonFiniteInput;
    const auto command = [this](int line, const Scalar* input, VectorType& scratch) {
      Scalar* slot = delays_[line].slot_to_exchange();
      if (slot == nullptr) return detail::DelayedCommand<Scalar>{input, input, scratch.data()};
      return detail::DelayedCommand<Scalar>{input, slot, slot};
    };
    const detail::DelayedCommand<Scalar> commands[3] = {
        command(0, target.derived().data(), target_),
        command(1, target_velocity.derived().data(), target_velocity_),
        command(2, feedforward.derived().data(), feedforward_)};
    auto& effort = const_cast<Eigen::MatrixBase<DOut>&>(out);
    const EffortLimits<Scalar, N_, MaxN_>& limits = output_limits_;
    const auto pass = [&](auto stage) {
      return drive_.template update_unchecked<kFull>(commands[0], commands[1], commands[2],
                                                     q.derived().data(), v.derived().data(),
                                                     effort.derived().data(), stage);
    };
    detail::PidSimpleFlags flags;
    if (limits.kind == EffortLimitKind::DcMotor) {
      flags = pass(detail::DcMotorStage<Scalar>{v.derived().data(), limits.stall_effort.data(),
                                                limits.peak_effort.data(),
                                                limits.no_load_speed.data()});
    } else {
      flags = pass(detail::NoOutputStage{});
      flags.stage_flagged = limits.kind != EffortLimitKind::None;
    }
    for (int line = 0; line < (kFull ? 3 : 1); ++line) delays_[line].slot_exchanged();
    clamp_after_drive(flags.stage_flagged, q, v, effort);
    return flags.overflow ? Status::NumericalOverflow : Status::Ok;
  }

  // The clamps after the drive, on the joints whose effort the drive wrote (a joint the drive held
  // on NumericalOverflow keeps its last clamped effort, clamped again at this v).
  template <typename DQ, typename DV, typename DOut>
  Status finish(Status drive_status, const Eigen::MatrixBase<DQ>& q, const Eigen::MatrixBase<DV>& v,
                const Eigen::MatrixBase<DOut>& out) noexcept {
    auto& effort = const_cast<Eigen::MatrixBase<DOut>&>(out);
    const EffortLimits<Scalar, N_, MaxN_>& limits = output_limits_;
    bool generic = limits.kind != EffortLimitKind::None;
    if constexpr (detail::all_contiguous<DV, DOut>()) {
      if (limits.kind == EffortLimitKind::DcMotor &&
          static_cast<const void*>(v.derived().data()) !=
              static_cast<const void*>(effort.derived().data()))
        generic = detail::dc_motor_clamp_contiguous(
            size(), effort.derived().data(), v.derived().data(), limits.stall_effort.data(),
            limits.peak_effort.data(), limits.no_load_speed.data());
    }
    clamp_after_drive(generic, q, v, effort);
    return drive_status;
  }

  // output_limits through effort_interval when `generic` (every joint: clamping twice is a
  // no-op), then the position table.
  template <typename DQ, typename DV, typename DOut>
  void clamp_after_drive(bool generic, const Eigen::MatrixBase<DQ>& q,
                         const Eigen::MatrixBase<DV>& v, Eigen::MatrixBase<DOut>& effort) noexcept {
    if (generic) detail::clamp_effort_unchecked(output_limits_, effort, v);
    position_limit_.clamp_unchecked(effort, q);
  }

  Drive drive_;
  Delay delays_[3];  // q*, v*, ff
  PositionLimit position_limit_;
  EffortLimits<Scalar, N_, MaxN_> output_limits_;
  VectorType target_, target_velocity_, feedforward_;  // the delayed commands of this step
};

}  // namespace claw
