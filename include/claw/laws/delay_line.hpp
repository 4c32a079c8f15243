// claw/laws/delay_line.hpp: DelayLine, a per-joint command delay of D control steps (a ring buffer
// of bounded capacity, no heap after construction), as an actuator's transport delay.
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <limits>

#include "claw/core/assert.hpp"
#include "claw/core/fields.hpp"
#include "claw/core/status.hpp"
#include "claw/core/types.hpp"

namespace claw {

namespace detail {

/// A DelayLine update one joint at a time, inside another block's pass (Actuator through
/// Pid::update_unchecked): returns joint j's delayed command, from[j], and puts input[j] in the
/// slot. D >= 1: from and slot are the line's slot_to_exchange(). D = 0: from is the input and
/// slot a scratch array of n entries (no select, which would keep the loop from vectorising).
template <typename Scalar>
struct DelayedCommand {
  const Scalar* input;
  const Scalar* from;
  Scalar* slot;
  Scalar operator()(Eigen::Index j) const noexcept {
    const Scalar leaving = from[j];
    slot[j] = input[j];
    return leaving;
  }
};

}  // namespace detail

/// Delays a vector of n joints by D whole control steps, 0 <= D <= MaxDelay: the output of step k
/// is the input of step k - D, bit for bit; for the first D steps after a reset it is the value the
/// line was reset to (0 by default). D = 0 passes the input through. One delay for all joints of
/// the line. update() refuses NaN/Inf input (NonFiniteInput) and wrong sizes (SizeMismatch),
/// touching nothing; input and out may be the same vector. Allocation-free after construction.
template <typename Scalar_, int N_ = Dynamic, int MaxN_ = N_, int MaxDelay_ = 8>
class DelayLine {
  static_assert(MaxDelay_ >= 1, "DelayLine: MaxDelay >= 1 (a delay of 0 needs no buffer)");

 public:
  using Scalar = Scalar_;                      ///< the scalar type (float or double)
  static constexpr int kMaxDelay = MaxDelay_;  ///< MaxDelay: the largest D, >= 1
  /// The ring: one row per slot (a slot holds every joint, contiguous), one column per joint.
  using Buffer = Eigen::Matrix<Scalar, Dynamic, N_, (N_ == 1 ? Eigen::ColMajor : Eigen::RowMajor),
                               MaxDelay_, MaxN_>;
  static constexpr const char* kCommandQuantity = "delayedCommand";  ///< out, for logging

  /// The pending commands: rows 0 .. D-1 of buffer in use, row head the oldest (the next out).
  struct State {
    Buffer buffer;          ///< MaxDelay x n; rows 0 .. D-1 hold the pending commands
    Eigen::Index head = 0;  ///< the row of the oldest (the next out), 0 .. max(D, 1) - 1
  };

  DelayLine() : DelayLine(N_ == Dynamic ? 0 : N_) {}

  /// A line for n joints with delay 0 (allocates here for dynamic sizes, never afterwards).
  explicit DelayLine(Eigen::Index n) {
    CLAW_ASSERT(N_ == Dynamic || n == N_, "DelayLine: size differs from the fixed size");
    CLAW_ASSERT(MaxN_ == Dynamic || n <= MaxN_, "DelayLine: size above MaxN");
    state_.buffer.setZero(MaxDelay_, n);
  }

  Eigen::Index size() const noexcept { return state_.buffer.cols(); }  ///< joint count n
  Eigen::Index delay() const noexcept { return delay_; }  ///< D [control steps], 0 ..= MaxDelay

  /// Sets D (0 ..= MaxDelay, else InvalidParameter with nothing changed) and empties the line:
  /// its next D outputs are 0.
  Status set_delay(Eigen::Index steps) noexcept {
    if (steps < 0 || steps > MaxDelay_) return Status::InvalidParameter;
    delay_ = steps;
    reset();
    return Status::Ok;
  }

  /// Empties the line: the next D outputs are 0.
  void reset() noexcept {
    state_.buffer.setZero();
    state_.head = 0;
  }

  /// Fills the line with `value` (a held command): the next D outputs are `value`.
  /// SizeMismatch / NonFiniteInput: nothing touched.
  template <typename DV>
  Status reset(const Eigen::MatrixBase<DV>& value) noexcept {
    if (size() == 0 || value.size() != size()) return Status::SizeMismatch;
    if (!all_finite(value)) return Status::NonFiniteInput;
    for (Eigen::Index slot = 0; slot < MaxDelay_; ++slot)
      state_.buffer.row(slot) = value.transpose();
    state_.head = 0;
    return Status::Ok;
  }

  /// Empties the line for the joints where `selected` is true (their next D outputs are 0); the
  /// other joints' pending commands are untouched. SizeMismatch: nothing touched.
  template <typename DM>
  Status reset_joints(const Eigen::DenseBase<DM>& selected) noexcept {
    if (size() == 0 || selected.size() != size()) return Status::SizeMismatch;
    for (Eigen::Index j = 0; j < size(); ++j)
      if (selected.coeff(j)) state_.buffer.col(j).setZero();
    return Status::Ok;
  }

  /// As above, the selected joints' lines holding `value` (their next D outputs): a held command.
  /// SizeMismatch, NonFiniteInput (a selected joint's value): nothing touched.
  template <typename DM, typename DV>
  Status reset_joints(const Eigen::DenseBase<DM>& selected,
                      const Eigen::MatrixBase<DV>& value) noexcept {
    if (size() == 0 || selected.size() != size() || value.size() != size())
      return Status::SizeMismatch;
    for (Eigen::Index j = 0; j < size(); ++j)
      if (selected.coeff(j) && !std::isfinite(value.coeff(j))) return Status::NonFiniteInput;
    for (Eigen::Index j = 0; j < size(); ++j)
      if (selected.coeff(j)) state_.buffer.col(j).setConstant(value.coeff(j));
    return Status::Ok;
  }

  /// Empties the lines of joints begin .. begin + count - 1 (one robot of a batch); SizeMismatch
  /// (nothing touched) when the range is not within 0 .. size() - 1.
  Status reset_joints(Eigen::Index begin, Eigen::Index count) noexcept {
    if (!range_within(begin, count, size())) return Status::SizeMismatch;
    state_.buffer.middleCols(begin, count).setZero();
    return Status::Ok;
  }

  /// One control step: out = the input of D steps ago, and the input enters the line.
  template <typename DI, typename DOut>
  Status update(const Eigen::MatrixBase<DI>& input, const Eigen::MatrixBase<DOut>& out) noexcept {
    if (size() == 0 || !all_have_size(size(), input, out)) return Status::SizeMismatch;
    if (!all_finite(input)) return Status::NonFiniteInput;
    return step(input, out);
  }

  /// Snapshot (rollback, checkpoints): copy it, and set_state() restores the line bit for bit
  /// under the same delay.
  const State& state() const noexcept { return state_; }
  /// Restores a snapshot. Refused, nothing touched: SizeMismatch (buffer not MaxDelay x size()),
  /// NonFiniteInput (NaN/Inf), InvalidParameter (head outside 0 .. max(D, 1) - 1).
  Status set_state(const State& snapshot) noexcept {
    const Status status = accepts_state(snapshot);
    if (status == Status::Ok) state_ = snapshot;
    return status;
  }
  /// What set_state() would answer, touching nothing.
  Status accepts_state(const State& snapshot) const noexcept {
    if (size() == 0 || snapshot.buffer.rows() != MaxDelay_ || snapshot.buffer.cols() != size())
      return Status::SizeMismatch;
    if (!all_finite(snapshot.buffer)) return Status::NonFiniteInput;
    if (snapshot.head < 0 || snapshot.head >= (delay_ > 0 ? delay_ : 1))
      return Status::InvalidParameter;
    return Status::Ok;
  }
  /// Joint j's command `slot` steps from leaving the line (0: the next output), 0 <= slot < D.
  Scalar pending(int slot, Eigen::Index j) const noexcept {
    const Eigen::Index row = (state_.head + slot) % delay_;
    return state_.buffer.coeff(row, j);
  }
  /// Logging (core/fields.hpp): one quantity per slot, the next output first.
  int state_quantity_count() const noexcept { return static_cast<int>(delay_); }
  /// Slot `slot`'s quantity: pendingCommand, logged as "pendingCommand<slot>_<joint>".
  static StateQuantity state_quantity(int slot) noexcept { return {"pendingCommand", slot}; }
  /// pending(slot, j).
  Scalar state_value(int slot, Eigen::Index j) const noexcept { return pending(slot, j); }

  /// update() for a caller's scratch `out`: the input is checked in the same pass that moves it
  /// (one pass over memory instead of two). On NonFiniteInput the line is unchanged but `out`
  /// holds unspecified values.
  template <typename DI, typename DOut>
  Status update_into_scratch(const Eigen::MatrixBase<DI>& input,
                             const Eigen::MatrixBase<DOut>& out) noexcept {
    if (size() == 0 || !all_have_size(size(), input, out)) return Status::SizeMismatch;
    if constexpr (detail::all_contiguous<DI, DOut>()) {
      Scalar* to = const_cast<Eigen::MatrixBase<DOut>&>(out).derived().data();
      if (delay_ > 0 && static_cast<const void*>(input.derived().data()) != to) {
        Scalar* slot = state_.buffer.row(state_.head).data();
        if (swap_through(size(), input.derived().data(), to, slot)) {
          restore_slot(size(), to, slot);  // out holds the slot's old values
          return Status::NonFiniteInput;
        }
        advance_head();
        return Status::Ok;
      }
    }
    return update(input, out);
  }

  /// Takes back the last update, given the `delayed` vector it wrote: the line is as before that
  /// update (for a pipeline that refuses a later stage's input after this stage ran). Call it at
  /// most once per update.
  template <typename DD>
  void revert(const Eigen::MatrixBase<DD>& delayed) noexcept {
    if (delay_ == 0) return;
    state_.head = (state_.head == 0) ? delay_ - 1 : state_.head - 1;
    state_.buffer.row(state_.head) = delayed.transpose();
  }

  /// For a block that moves the commands in its own pass over memory (Actuator): the slot the next
  /// update exchanges (delayed[j] = slot[j], then slot[j] = input[j], for every joint; the input
  /// finite, as update() checks), nullptr when D = 0. After the exchange, call slot_exchanged().
  Scalar* slot_to_exchange() noexcept {
    return delay_ > 0 ? state_.buffer.row(state_.head).data() : nullptr;
  }
  /// Ends the exchange of slot_to_exchange()'s slot: the line advances one step (D = 0: nothing).
  void slot_exchanged() noexcept {
    if (delay_ > 0) advance_head();
  }

 private:
  static_assert(N_ == 1 || Buffer::IsRowMajor, "a slot is one contiguous row");

  template <typename DI, typename DOut>
  Status step(const Eigen::MatrixBase<DI>& input, const Eigen::MatrixBase<DOut>& out) noexcept {
    auto& delayed = const_cast<Eigen::MatrixBase<DOut>&>(out);
    if (delay_ == 0) {
      for (Eigen::Index j = 0; j < size(); ++j) delayed.coeffRef(j) = input.coeff(j);
      return Status::Ok;
    }
    Scalar* slot = state_.buffer.row(state_.head).data();  // contiguous: one row holds every joint
    bool done = false;
    if constexpr (detail::all_contiguous<DI, DOut>()) {
      if (static_cast<const void*>(input.derived().data()) !=
          static_cast<const void*>(delayed.derived().data())) {
        (void)swap_through(size(), input.derived().data(), delayed.derived().data(), slot);
        done = true;
      }
    }
    if (!done) {
      for (Eigen::Index j = 0; j < size(); ++j) {
        const Scalar entering = input.coeff(j);  // read first: out may be the input
        delayed.coeffRef(j) = slot[j];
        slot[j] = entering;
      }
    }
    advance_head();
    return Status::Ok;
  }

  // The slot just filled becomes the newest: head moves to the next oldest (D >= 1).
  void advance_head() noexcept { state_.head = (state_.head + 1 == delay_) ? 0 : state_.head + 1; }

  // out = slot, slot = in over n joints, for distinct arrays (a loop the compiler vectorises);
  // true when some input is NaN/Inf.
  CLAW_DETAIL_NOINLINE static bool swap_through(Eigen::Index n, const Scalar* __restrict in,
                                                Scalar* __restrict out,
                                                Scalar* __restrict slot) noexcept {
    constexpr Scalar kMax = std::numeric_limits<Scalar>::max();
    using Count = detail::LaneCount<Scalar>;
    Count bad = 0;
    for (Eigen::Index j = 0; j < n; ++j) {
      const Scalar x = in[j];
      bad += std::fabs(x) <= kMax ? Count(0) : Count(1);
      out[j] = slot[j];
      slot[j] = x;
    }
    return bad != 0;
  }
  // Undoes swap_through on the slot, from its out (which holds the slot's old values).
  static void restore_slot(Eigen::Index n, const Scalar* __restrict out,
                           Scalar* __restrict slot) noexcept {
    for (Eigen::Index j = 0; j < n; ++j) slot[j] = out[j];
  }

  State state_;
  Eigen::Index delay_ = 0;
};

}  // namespace claw
