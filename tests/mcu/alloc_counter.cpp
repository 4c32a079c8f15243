// tests/mcu/alloc_counter.cpp: the counting heap for the board program. Each __wrap_X counts, then
// calls the real newlib X (__real_X). Both the C entry points (what Eigen and operator new call)
// and newlib's reentrant _X_r forms (what the C library calls inside) are wrapped, so no path to
// the heap is missed; a malloc through both counts twice, which is fine: the test wants zero.
#include "alloc_counter.hpp"

#include <cstddef>

struct _reent;

namespace {
volatile std::size_t g_allocations = 0;
volatile std::size_t g_frees = 0;
void count_allocation() { g_allocations = g_allocations + 1; }
void count_free() { g_frees = g_frees + 1; }
}  // namespace

namespace claw_mcu {
std::size_t allocation_count() { return g_allocations; }
std::size_t free_count() { return g_frees; }
}  // namespace claw_mcu

extern "C" {
void* __real_malloc(std::size_t size);
void* __real_calloc(std::size_t count, std::size_t size);
void* __real_realloc(void* pointer, std::size_t size);
void* __real_memalign(std::size_t alignment, std::size_t size);
void __real_free(void* pointer);
void* __real__malloc_r(_reent* reent, std::size_t size);
void* __real__calloc_r(_reent* reent, std::size_t count, std::size_t size);
void* __real__realloc_r(_reent* reent, void* pointer, std::size_t size);
void* __real__memalign_r(_reent* reent, std::size_t alignment, std::size_t size);
void __real__free_r(_reent* reent, void* pointer);

void* __wrap_malloc(std::size_t size) {
  count_allocation();
  return __real_malloc(size);
}
void* __wrap_calloc(std::size_t count, std::size_t size) {
  count_allocation();
  return __real_calloc(count, size);
}
void* __wrap_realloc(void* pointer, std::size_t size) {
  count_allocation();
  return __real_realloc(pointer, size);
}
void* __wrap_memalign(std::size_t alignment, std::size_t size) {
  count_allocation();
  return __real_memalign(alignment, size);
}
void __wrap_free(void* pointer) {
  count_free();
  __real_free(pointer);
}
void* __wrap__malloc_r(_reent* reent, std::size_t size) {
  count_allocation();
  return __real__malloc_r(reent, size);
}
void* __wrap__calloc_r(_reent* reent, std::size_t count, std::size_t size) {
  count_allocation();
  return __real__calloc_r(reent, count, size);
}
void* __wrap__realloc_r(_reent* reent, void* pointer, std::size_t size) {
  count_allocation();
  return __real__realloc_r(reent, pointer, size);
}
void* __wrap__memalign_r(_reent* reent, std::size_t alignment, std::size_t size) {
  count_allocation();
  return __real__memalign_r(reent, alignment, size);
}
void __wrap__free_r(_reent* reent, void* pointer) {
  count_free();
  __real__free_r(reent, pointer);
}
}
