// claw/core/status.hpp: the Status enum every claw call returns, and to_string() for it.
// A refusal touches nothing; each call documents what any other status leaves written.
#pragma once

#include <cstdint>

namespace claw {

/// Result of a claw call. Hot-path calls return it instead of throwing; [[nodiscard]]: a caller
/// that drops it gets a compiler warning (an error under -Werror).
enum class [[nodiscard]] Status : std::uint8_t{
    Ok = 0,             ///< Done; outputs written.
    NegativeTimeStep,   ///< dt < 0: integration backward in time is refused; nothing touched.
    NonFiniteInput,     ///< An input holds NaN or Inf; nothing touched, last output held.
    InvalidBounds,      ///< Bounds are NaN, lower > upper, or unusable for the chosen mode.
    InvalidParameter,   ///< A gain, limit or setting is out of its domain; old values kept.
    SizeMismatch,       ///< Vectors of different lengths where equal lengths are required.
    NumericalOverflow,  ///< Finite inputs overflowed to a non-finite result; that output held.
    Infeasible,         ///< The problem has no solution (solvers, filters).
    MaxIterations,      ///< The iteration cap was reached before convergence (solvers).
    InvalidProblem,     ///< The problem data is inconsistent (solvers).
    IllConditioned,     ///< Undecidable in this precision: the data's conditioning hides the answer
                        ///< (solvers).
};

/// A short, stable English name of a status (for logs; no allocation).
constexpr const char* to_string(Status status) noexcept {
  switch (status) {
    case Status::Ok:
      return "Ok";
    case Status::NegativeTimeStep:
      return "NegativeTimeStep";
    case Status::NonFiniteInput:
      return "NonFiniteInput";
    case Status::InvalidBounds:
      return "InvalidBounds";
    case Status::InvalidParameter:
      return "InvalidParameter";
    case Status::SizeMismatch:
      return "SizeMismatch";
    case Status::NumericalOverflow:
      return "NumericalOverflow";
    case Status::Infeasible:
      return "Infeasible";
    case Status::MaxIterations:
      return "MaxIterations";
    case Status::InvalidProblem:
      return "InvalidProblem";
    case Status::IllConditioned:
      return "IllConditioned";
  }
  return "Unknown";
}

/// True when the status is Ok.
constexpr bool ok(Status status) noexcept { return status == Status::Ok; }

}  // namespace claw
