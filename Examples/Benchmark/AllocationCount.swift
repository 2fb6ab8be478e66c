import AllocationCounter

/// The heap allocations of this process (see the `AllocationCounter` target).
enum AllocationCount {
    /// Allocations made so far; negative where they are not counted (not glibc).
    static var now: Int64 { Int64(ds_allocation_count()) }
}
