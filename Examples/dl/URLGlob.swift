/// curl's URL globbing: a URL with ranges and lists in it stands for several URLs.
///
/// - `[1-10]` is 1 to 10; `[01-10]` zero padded to the first number's width (01 to 10); `[a-z]`
///   letters; a step after a colon (`[0-100:25]`).
/// - `{a,b,c}` is each of the list's texts.
/// - Several in one URL make every combination, the last one changing fastest.
/// - `\[`, `\]`, `\{`, `\}` are the characters themselves; so is an IPv6 address (`http://[::1]/`).
///
/// `#1`, `#2`… in a name (``name(_:captures:)``) are the texts of the first, second… glob.
struct URLGlob: Equatable {
    /// A piece of the URL: text as written, or one glob's texts.
    enum Part: Equatable {
        case text(String)
        case glob([String])
    }

    /// The most URLs one URL may stand for.
    static let maximumCount = 100_000

    let parts: [Part]

    /// How many globs the URL has.
    var globCount: Int { parts.filter { if case .glob = $0 { true } else { false } }.count }

    /// Reads `text`; a glob that is not one of the forms above, or that makes more than
    /// ``maximumCount`` URLs, is a usage error.
    init(_ text: String) throws(UsageError) {
        var parts: [Part] = []
        var literal = ""
        var characters = Substring(text)
        var count = 1
        while let character = characters.popFirst() {
            switch character {
            case "\\" where characters.first.map { "[]{}".contains($0) } == true:
                literal.append(characters.removeFirst())
            case "[" where literal.hasSuffix("://") || literal.hasSuffix("@"):
                // An IPv6 address in the host: [::1].
                guard let end = characters.firstIndex(of: "]") else { throw Self.error(text, "'[' without ']'") }
                literal += "[" + characters[..<end] + "]"
                characters = characters[characters.index(after: end)...]
            case "[", "{":
                let close: Character = character == "[" ? "]" : "}"
                guard let end = characters.firstIndex(of: close) else {
                    throw Self.error(text, "'\(character)' without '\(close)'")
                }
                let inside = String(characters[..<end])
                characters = characters[characters.index(after: end)...]
                guard !inside.contains(where: { "[]{}".contains($0) }) else {
                    throw Self.error(text, "globs cannot be nested")
                }
                let texts =
                    character == "{"
                    ? inside.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                    : try Self.range(inside, in: text)
                if !literal.isEmpty { parts.append(.text(literal)) }
                literal = ""
                parts.append(.glob(texts))
                // Each glob has at most maximumCount texts: the product cannot overflow before this.
                count *= texts.count
                guard count <= Self.maximumCount else { throw Self.tooMany(text) }
            case "]", "}":
                throw Self.error(text, "'\(character)' without its opening")
            default:
                literal.append(character)
            }
        }
        if !literal.isEmpty { parts.append(.text(literal)) }
        self.parts = parts
    }

    /// Every URL, in order (the last glob changing fastest), with the text of each glob in it.
    func expanded() -> [(url: String, captures: [String])] {
        var results: [(url: String, captures: [String])] = [("", [])]
        for part in parts {
            switch part {
            case .text(let text):
                results = results.map { ($0.url + text, $0.captures) }
            case .glob(let texts):
                results = results.flatMap { result in texts.map { (result.url + $0, result.captures + [$0]) } }
            }
        }
        return results
    }

    /// `template` with `#1`, `#2`… replaced by the texts of the first, second… glob; a number
    /// past the last glob is a usage error.
    static func name(_ template: String, captures: [String]) throws(UsageError) -> String {
        var name = ""
        var characters = Substring(template)
        while let character = characters.popFirst() {
            let digits = characters.prefix { $0.isASCII && $0.isNumber }
            guard character == "#", !digits.isEmpty else {
                name.append(character)
                continue
            }
            characters = characters.dropFirst(digits.count)
            guard let number = Int(digits), number >= 1, number <= captures.count else {
                throw .other("'\(template)' names glob #\(digits), but the URL has \(captures.count)")
            }
            name += captures[number - 1]
        }
        return name
    }

    /// Whether `template` names a glob's text (`#1`).
    static func namesGlobs(_ template: String) -> Bool {
        template.contains(/#[0-9]/)
    }

    /// The texts of `[FIRST-LAST]` or `[FIRST-LAST:STEP]`: numbers (zero padded when FIRST has
    /// a leading zero) or letters.
    private static func range(_ inside: String, in text: String) throws(UsageError) -> [String] {
        let bad = error(text, "[\(inside)] is not a range: [1-10], [01-10], [a-z] or [1-10:2]")
        let stepParts = inside.split(separator: ":", omittingEmptySubsequences: false)
        guard stepParts.count <= 2 else { throw bad }
        var step = 1
        if stepParts.count == 2 {
            guard Options.isWholeNumber(String(stepParts[1])), let value = Int(stepParts[1]), value >= 1 else {
                throw bad
            }
            step = value
        }
        let ends = stepParts[0].split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        guard ends.count == 2 else { throw bad }
        let (first, last) = (ends[0], ends[1])
        if Options.isWholeNumber(first), Options.isWholeNumber(last), first.count <= 9, last.count <= 9,
            let low = Int(first), let high = Int(last)
        {
            guard low <= high else { throw error(text, "[\(inside)] goes down: write it low to high") }
            let width = first.hasPrefix("0") ? first.count : 1
            guard (high - low) / step < maximumCount else { throw tooMany(text) }
            return stride(from: low, through: high, by: step).map { number in
                let digits = String(number)
                return String(repeating: "0", count: max(0, width - digits.count)) + digits
            }
        }
        guard first.count == 1, last.count == 1, let low = first.unicodeScalars.first,
            let high = last.unicodeScalars.first, low.properties.isAlphabetic, low.isASCII, high.isASCII,
            (low.properties.isLowercase && high.properties.isLowercase)
                || (low.properties.isUppercase && high.properties.isUppercase)
        else { throw bad }
        guard low <= high else { throw error(text, "[\(inside)] goes down: write it low to high") }
        return stride(from: low.value, through: high.value, by: step).compactMap { Unicode.Scalar($0).map(String.init) }
    }

    private static func error(_ text: String, _ problem: String) -> UsageError {
        .other("bad glob in '\(text)': \(problem) (-g takes [ ] and { } as they are)")
    }

    private static func tooMany(_ text: String) -> UsageError {
        .other("'\(text)' makes more than \(maximumCount) URLs: give fewer, or take [ ] and { } as they are with -g")
    }
}
