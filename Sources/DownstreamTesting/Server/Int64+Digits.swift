extension Int64 {
    /// Parses a non-empty run of ASCII digits; `nil` on anything else or on overflow.
    init?(digits: Substring) {
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let value = Int64(digits)
        else { return nil }
        self = value
    }
}
