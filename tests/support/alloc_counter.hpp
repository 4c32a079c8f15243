// tests/support/alloc_counter.hpp: counts heap allocations (malloc and friends) made by the
// process, and a helper that runs a call with Eigen's runtime malloc check armed and the counter
// watching.
#pragma once

#include <Eigen/Core>
#include <cstddef>

namespace claw_test {

/// Number of malloc/calloc/realloc/aligned allocations since start (0 forever when unavailable).
std::size_t allocation_count() noexcept;

/// False in sanitizer builds, where the sanitizer owns malloc and the counter is not linked.
bool allocation_counting_available() noexcept;

/// Runs f() with Eigen's EIGEN_RUNTIME_NO_MALLOC check armed (an Eigen allocation aborts the test)
/// and returns how many heap allocations the counter saw during the call.
template <typename F>
std::size_t allocations_during(F&& f) {
  const std::size_t before = allocation_count();
  Eigen::internal::set_is_malloc_allowed(false);
  f();
  Eigen::internal::set_is_malloc_allowed(true);
  return allocation_count() - before;
}

}  // namespace claw_test
