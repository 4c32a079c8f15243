// tests/mcu/alloc_counter.hpp: counts every heap call the board program makes. The link wraps
// newlib's malloc family (-Wl,--wrap=...: see tests/mcu/CMakeLists.txt), so Eigen, operator new and
// the C library all pass through the counters.
#pragma once

#include <cstddef>

namespace claw_mcu {

/// Allocations (malloc, calloc, realloc, memalign and their newlib _r forms) since reset.
std::size_t allocation_count();
/// free / _free_r calls.
std::size_t free_count();

/// Runs f() and returns how many allocations and frees it made together.
template <typename F>
std::size_t heap_calls_during(F&& f) {
  const std::size_t before = allocation_count() + free_count();
  f();
  return allocation_count() + free_count() - before;
}

}  // namespace claw_mcu
