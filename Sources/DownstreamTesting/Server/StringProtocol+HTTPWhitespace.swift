extension StringProtocol where SubSequence == Substring {
    /// The string without leading and trailing spaces and tabs.
    func trimmingHTTPWhitespace() -> Substring {
        let isWhitespace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isWhitespace($0) }),
            let last = lastIndex(where: { !isWhitespace($0) })
        else { return Substring() }
        return self[first...last]
    }
}
