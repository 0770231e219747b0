/* SPDX-License-Identifier: MIT */
/* The bytes the allocator has handed out and not had back, for tests that
 * check memory is given back: ASan's own count in a sanitizer build (glibc's
 * arena is then unused), glibc's otherwise. */
#ifndef GT_TEST_HEAP_H
#define GT_TEST_HEAP_H
#include <stddef.h>

#if defined(__SANITIZE_ADDRESS__)
#define GT_TEST_HEAP_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GT_TEST_HEAP_ASAN 1
#endif
#endif

#ifdef GT_TEST_HEAP_ASAN
#include <sanitizer/allocator_interface.h>
static inline size_t heap_in_use(void) { return __sanitizer_get_current_allocated_bytes(); }
#else
#include <malloc.h>
static inline size_t heap_in_use(void)
{
    struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
}
#endif
#endif
