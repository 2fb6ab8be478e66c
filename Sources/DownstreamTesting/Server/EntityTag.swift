/// An entity tag (RFC 9110, section 8.8.3): a quoted opaque string, weak when it starts
/// with `W/`.
struct EntityTag: Equatable {
    var isWeak: Bool
    /// The opaque tag, quotes included.
    var opaque: Substring

    /// Parses one entity tag, such as `"v1"` or `W/"v1"`; `nil` for anything else.
    init?(_ text: Substring) {
        guard let (tag, rest) = EntityTag.parse(text), rest.isEmpty else { return nil }
        self = tag
    }

    private init(isWeak: Bool, opaque: Substring) {
        self.isWeak = isWeak
        self.opaque = opaque
    }

    /// The tags of a comma-separated list, as `If-None-Match` carries; `nil` when it is
    /// malformed.
    static func list(_ value: String) -> [EntityTag]? {
        var tags: [EntityTag] = []
        var rest = Substring(value)
        while true {
            rest = rest.drop { $0 == " " || $0 == "\t" || $0 == "," }
            guard !rest.isEmpty else { return tags }
            guard let (tag, after) = parse(rest) else { return nil }
            rest = after.trimmingHTTPWhitespace()
            guard rest.isEmpty || rest.hasPrefix(",") else { return nil }
            tags.append(tag)
        }
    }

    /// Whether the two tags match by weak comparison (RFC 9110, section 8.8.3.2): their opaque
    /// tags are the same, weak or not.
    func matchesWeakly(_ other: EntityTag) -> Bool {
        opaque == other.opaque
    }

    /// The tag at the start of `text`, and what follows it.
    private static func parse(_ text: Substring) -> (EntityTag, rest: Substring)? {
        let isWeak = text.hasPrefix("W/")
        let quoted = isWeak ? text.dropFirst(2) : text
        guard quoted.first == "\"", let close = quoted.dropFirst().firstIndex(of: "\"") else { return nil }
        let end = quoted.index(after: close)
        return (EntityTag(isWeak: isWeak, opaque: quoted[..<end]), quoted[end...])
    }
}
