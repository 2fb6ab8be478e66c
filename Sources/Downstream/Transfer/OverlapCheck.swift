/// The bytes just before a resume point, as the partial file holds them, and how far the first
/// bytes of a response matched them.
///
/// Every request that continues bytes on disk asks for these bytes again (a validator may be kept
/// by a replaced file); the response's first bytes must be the same before a single byte is
/// written. Bytes that differ mean the server's file is not the one the partial file holds.
struct OverlapCheck: Sendable {
    /// The partial file's bytes the response must repeat.
    let expected: [UInt8]
    /// How many of them the response repeated so far.
    private(set) var matched = 0

    init(expected: [UInt8]) {
        self.expected = expected
    }

    /// Why a body whose overlap differs is not continued at `resumePoint`.
    func mismatch(before resumePoint: Int64) -> String {
        "the \(expected.count) bytes before byte \(resumePoint) are not those on disk"
    }

    /// Whether every expected byte was matched: what follows in the body is new.
    var isComplete: Bool { matched == expected.count }

    /// Compares the body's next bytes with the expected ones. Returns how many of `bytes` belong
    /// to the overlap (the rest is new), or nil at the first byte that differs.
    mutating func consume(_ bytes: UnsafeRawBufferPointer) -> Int? {
        let count = min(bytes.count, expected.count - matched)
        guard count > 0 else { return 0 }
        let equal = expected.withUnsafeBytes { expected in
            UnsafeRawBufferPointer(rebasing: expected[matched..<matched + count]).elementsEqual(
                UnsafeRawBufferPointer(rebasing: bytes[..<count]))
        }
        guard equal else { return nil }
        matched += count
        return count
    }
}
