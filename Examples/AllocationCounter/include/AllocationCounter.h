#ifndef DOWNSTREAM_ALLOCATION_COUNTER_H
#define DOWNSTREAM_ALLOCATION_COUNTER_H

/// The heap allocations this process made so far (calls to malloc, calloc, realloc,
/// posix_memalign, aligned_alloc and memalign), or -1 where they are not counted (not glibc).
long long ds_allocation_count(void);

#endif
