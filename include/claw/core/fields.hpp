// claw/core/fields.hpp: logging field names, one per scalar of a block's state or command, built
// from the caller's joint names as gym_jiminy's fieldnames ("<quantity><joint>"), without heap.
#pragma once

#include <Eigen/Core>
#include <cstddef>

#include "claw/core/status.hpp"

namespace claw {

/// One logged scalar: a quantity ("integralTerm"), the delay slot it sits in (pending commands of a
/// delay line, 0 = the next one out; -1 for none) and the caller's joint name.
struct FieldName {
  const char* quantity = "";  ///< the quantity ("integralTerm"), NUL-terminated
  int slot = -1;              ///< delay slot, 0 = the next command out; -1 for none
  const char* joint = "";     ///< the caller's joint name, NUL-terminated

  /// Writes "<quantity><joint>" ("<quantity><slot>_<joint>" for a slot) into buffer, NUL-terminated
  /// and cut to capacity - 1 characters; returns the full length without the NUL (a buffer of
  /// length() + 1 holds it whole). buffer may be null when capacity is 0.
  std::size_t write(char* buffer, std::size_t capacity) const noexcept {
    std::size_t written = 0;  // the full length so far
    const auto put = [&](char c) {
      if (written + 1 < capacity) buffer[written] = c;
      ++written;
    };
    for (const char* c = quantity; *c != '\0'; ++c) put(*c);
    if (slot >= 0) {
      char digits[12];
      int count = 0;
      for (int s = slot; count == 0 || s > 0; s /= 10) digits[count++] = char('0' + s % 10);
      while (count > 0) put(digits[--count]);
      put('_');
    }
    for (const char* c = joint; *c != '\0'; ++c) put(*c);
    if (capacity > 0) buffer[written < capacity ? written : capacity - 1] = '\0';
    return written;
  }
  std::size_t length() const noexcept { return write(nullptr, 0); }  ///< length without the NUL
};

/// A logged quantity of a block's state: its name and, for a delay line's pending commands, the
/// slot (-1 for none).
struct StateQuantity {
  const char* name;  ///< the quantity ("integralTerm"), the prefix of its fields' names
  int slot;          ///< delay slot, 0 = the next command out; -1 for none
};

/// Calls sink(FieldName) once per scalar of block's state, quantity by quantity and, within one,
/// joint by joint: the order state_values() writes. joints[j] is joint j's name (const char*).
template <typename Block, typename Names, typename Sink>
void state_field_names(const Block& block, const Names& joints, Sink&& sink) {
  for (int q = 0; q < block.state_quantity_count(); ++q) {
    const StateQuantity quantity = block.state_quantity(q);
    for (Eigen::Index j = 0; j < block.size(); ++j)
      sink(FieldName{quantity.name, quantity.slot, joints[static_cast<std::size_t>(j)]});
  }
}

/// Calls sink(FieldName) once per joint of block's command (its output vector).
template <typename Block, typename Names, typename Sink>
void command_field_names(const Block& block, const Names& joints, Sink&& sink) {
  for (Eigen::Index j = 0; j < block.size(); ++j)
    sink(FieldName{Block::kCommandQuantity, -1, joints[static_cast<std::size_t>(j)]});
}

/// Number of scalars of block's state (= the names state_field_names gives).
template <typename Block>
Eigen::Index state_scalar_count(const Block& block) noexcept {
  return Eigen::Index(block.state_quantity_count()) * block.size();
}

/// Writes block's state scalars into out in the order of state_field_names; SizeMismatch (nothing
/// written) when out.size() != state_scalar_count(block). Allocation-free.
template <typename Block, typename DOut>
Status state_values(const Block& block, const Eigen::MatrixBase<DOut>& out) noexcept {
  if (out.size() != state_scalar_count(block)) return Status::SizeMismatch;
  auto& o = const_cast<Eigen::MatrixBase<DOut>&>(out);
  Eigen::Index k = 0;
  for (int q = 0; q < block.state_quantity_count(); ++q)
    for (Eigen::Index j = 0; j < block.size(); ++j) o.coeffRef(k++) = block.state_value(q, j);
  return Status::Ok;
}

/// The state of a block that keeps none between calls.
struct NoState {};

/// Snapshot and logging members of a block that keeps nothing between calls (its scratch is not
/// state): an empty State and no logged quantity. The block adds set_state(), which checks only
/// that it has joints.
template <typename Scalar>
struct StatelessBlock {
  using State = NoState;  ///< nothing is carried between calls
  /// The empty snapshot.
  State state() const noexcept { return {}; }
  /// No logged quantity.
  static constexpr int state_quantity_count() noexcept { return 0; }
  /// {"", -1}: there is no quantity q to name.
  static StateQuantity state_quantity(int /*q*/) noexcept { return {"", -1}; }
  /// 0: there is no quantity q to log.
  Scalar state_value(int /*q*/, Eigen::Index /*j*/) const noexcept { return Scalar(0); }
};

}  // namespace claw
