import Foundation

/// A few mutexes that guard the small states of many objects: an object's state is guarded by
/// the mutex its address picks, and lives in the object itself.
///
/// A ``Locked`` value is an object of its own with its mutex: 88 bytes on Linux. 100,000 queued
/// downloads each kept two. Here the objects share 64 mutexes, and the state costs only its own
/// bytes in its owner.
///
/// Two objects may share a mutex, so besides ``Locked``'s rules: never take a lock of the same
/// ``SharedLocks`` while holding one (another object's may be the same mutex), and keep the
/// closures as short as the state they touch.
final class SharedLocks: @unchecked Sendable {
    // Safe: the mutexes are only used through `pthread_mutex_lock` and `unlock`, which are
    // thread-safe, and they are never destroyed (the instances are static).
    private final class Mutexes: ManagedBuffer<Void, pthread_mutex_t> {}

    /// The locks of downloads' snapshots (what other threads read without the actor).
    static let downloads = SharedLocks()
    /// The locks of downloads' records.
    static let records = SharedLocks()

    /// A power of two: the index is the top bits of a product.
    private static let count = 64
    private let mutexes: Mutexes

    private init() {
        let buffer = Mutexes.create(minimumCapacity: Self.count) { _ in }
        mutexes = unsafeDowncast(buffer, to: Mutexes.self)
        mutexes.withUnsafeMutablePointerToElements { first in
            for index in 0..<Self.count {
                pthread_mutex_init(first + index, nil)
            }
        }
    }

    /// Runs `body` holding the mutex of `object`.
    func withLock<Result>(for object: AnyObject, _ body: () throws -> Result) rethrows -> Result {
        try mutexes.withUnsafeMutablePointerToElements { first in
            let mutex = first + Self.index(of: object)
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body()
        }
    }

    /// The index of `object`'s mutex: its address (without the bits every allocation has zero),
    /// multiplied by an odd constant, whose top bits mix all of the address's.
    static func index(of object: AnyObject) -> Int {
        let address = UInt64(UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque()))
        let mixed = (address >> 4) &* 0x9E37_79B9_7F4A_7C15
        // Fewer bits than `count` has: the clamp never changes the value.
        return Int(clamping: mixed >> UInt64(64 - count.trailingZeroBitCount))
    }
}
