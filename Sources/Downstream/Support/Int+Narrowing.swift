import Foundation

/// Narrowing a 64-bit quantity to `Int` where `Int` may have 32 bits (watchOS's arm64_32): byte
/// counts, offsets and lengths are `Int64`, and become an `Int` only as an in-memory size (a
/// buffer, a `Data`, a system call's count), through these. `.ci/check-narrowing` fails on any
/// other conversion of an `Int64` or `UInt64` to `Int`.
extension Int {
    /// `value`, or `limit` when `value` is larger: the part of a 64-bit quantity (what is left of
    /// a file or a body) that fits an in-memory size (`limit`, a buffer's). Never traps; a
    /// negative `value` stays as it is.
    package static func clamped(_ value: Int64, atMost limit: Int) -> Int {
        value < Int64(limit) ? Int(clamping: value) : limit
    }
}

extension Int64 {
    /// The value as the system's file offset. `off_t` has 64 bits wherever the package runs
    /// (Darwin's is `Int64` on every architecture, arm64_32 included; on 64-bit Linux it is
    /// `Int`), so the clamp never changes a value.
    var fileOffset: off_t { off_t(clamping: self) }
}
