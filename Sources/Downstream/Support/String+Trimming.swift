extension StringProtocol {
    /// The text without the spaces and tabs around it (HTTP's optional whitespace, RFC 9110
    /// section 5.6.3). Cheaper than Foundation's `trimmingCharacters(in:)`, which goes through
    /// `NSString` on Linux; response heads are parsed for every request.
    var trimmingWhitespace: SubSequence {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isBlank($0) }) else { return self[endIndex...] }
        let last = lastIndex(where: { !isBlank($0) }) ?? first
        return self[first...last]
    }
}
