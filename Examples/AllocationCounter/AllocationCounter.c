// The benchmark's allocation counter: on glibc, the executable defines the allocation functions,
// which every library of the process then calls (an executable's symbols come first), counts the
// call and hands it to glibc's own (`__libc_malloc` and its siblings, which glibc exports for
// this). `free` is glibc's: the memory is glibc's. Elsewhere nothing is counted.
#include "AllocationCounter.h"

// (A C library header first: it defines __GLIBC__.)
#include <errno.h>
#include <stddef.h>

#if defined(__linux__) && defined(__GLIBC__)

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

static unsigned long long allocations;

static inline void counted(void) {
    __atomic_fetch_add(&allocations, 1, __ATOMIC_RELAXED);
}

void *malloc(size_t size) {
    counted();
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    counted();
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    counted();
    return __libc_realloc(pointer, size);
}

void *memalign(size_t alignment, size_t size) {
    counted();
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    counted();
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) {
        return EINVAL;
    }
    counted();
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) {
        return ENOMEM;
    }
    *result = pointer;
    return 0;
}

long long ds_allocation_count(void) {
    return (long long)__atomic_load_n(&allocations, __ATOMIC_RELAXED);
}
#else
long long ds_allocation_count(void) {
    return -1;
}
#endif
