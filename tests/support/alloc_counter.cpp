// tests/support/alloc_counter.cpp: a counting malloc for the test executable (glibc, no sanitizer):
// each entry point counts, then forwards to glibc's __libc_* implementation.
#include "support/alloc_counter.hpp"

#include <atomic>

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer) || \
    __has_feature(thread_sanitizer)
#define CLAW_TEST_SANITIZER 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CLAW_TEST_SANITIZER 1
#endif

namespace {
std::atomic<std::size_t> g_allocations{0};
}

namespace claw_test {
std::size_t allocation_count() noexcept { return g_allocations.load(std::memory_order_relaxed); }
bool allocation_counting_available() noexcept {
#if defined(CLAW_TEST_SANITIZER) || !defined(__GLIBC__)
  return false;
#else
  return true;
#endif
}
}  // namespace claw_test

#if !defined(CLAW_TEST_SANITIZER) && defined(__GLIBC__)
#include <cstddef>
extern "C" {
void* __libc_malloc(std::size_t size);
void* __libc_calloc(std::size_t count, std::size_t size);
void* __libc_realloc(void* pointer, std::size_t size);
void* __libc_memalign(std::size_t alignment, std::size_t size);
void __libc_free(void* pointer);

void* malloc(std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_malloc(size);
}
void* calloc(std::size_t count, std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_calloc(count, size);
}
void* realloc(void* pointer, std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_realloc(pointer, size);
}
void* memalign(std::size_t alignment, std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_memalign(alignment, size);
}
void* aligned_alloc(std::size_t alignment, std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_memalign(alignment, size);
}
int posix_memalign(void** out, std::size_t alignment, std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  void* pointer = __libc_memalign(alignment, size);
  if (pointer == nullptr) return 12;  // ENOMEM
  *out = pointer;
  return 0;
}
void free(void* pointer) { __libc_free(pointer); }
}
#endif
