import Foundation
import Testing

/// SplitMix64 (Steele, Lea and Flood, "Fast Splittable Pseudorandom Number Generators", 2014): a
/// whole state of one word, so that a fuzz test's seed is all it takes to draw its inputs again.
struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}

/// Draws a fuzz test's inputs from a fixed seed, and keeps the invariants they broke.
///
/// Each round of ``run(seed:rounds:_:)`` draws what it needs: random bytes, a soup of a parser's
/// tokens, or one of its real values mutated a few times (bits and bytes flipped, special
/// characters, invalid UTF-8, huge numbers and long runs inserted, parts cut, repeated or spliced
/// from another value). It checks what it parsed with ``expect(_:_:)``; a round that broke an
/// invariant is kept with the seed, the round's number and every text the round drew, for
/// ``recordIssues(sourceLocation:)``. Nothing is printed or kept for the other rounds. A round
/// that crashes stops the process, with a backtrace that names the parser; its test's seed draws
/// the same rounds again.
struct Fuzzer: Sendable {
    /// A parser's real inputs, and the words of its grammar that mutations insert.
    struct Corpus: Sendable {
        var values: [[UInt8]]
        var tokens: [[UInt8]]

        init(_ values: [String], tokens: [String] = []) {
            precondition(!values.isEmpty, "a corpus needs a value to mutate")
            self.values = values.map { Array($0.utf8) }
            self.tokens = tokens.map { Array($0.utf8) } + Fuzzer.specials + Fuzzer.numbers
        }
    }

    /// A round that broke an invariant.
    struct Failure: Sendable {
        var round: Int
        var problems: [String]
        var inputs: [[UInt8]]
    }

    /// Rounds kept in full when they broke invariants; the others are only counted.
    static let keptFailures = 5
    /// More CPU time than any input should take: a round that does is reported. (The thread's CPU
    /// time, not the wall clock's: a loaded machine keeps the thread waiting, which is no
    /// parser's doing.)
    static let slowRound = Duration.seconds(2)
    /// Every fuzz suite's wall-clock limit: a hang, not a slow parser (``slowRound`` catches
    /// those, in CPU time). Generous: a suite's 100,000 rounds take 17 s of a quiet debug build,
    /// and took over 120 s (the limit before) with both cores shared by four compilers.
    static let hangLimit: TimeLimitTrait = .timeLimit(.minutes(10))

    let seed: UInt64
    /// The generator, for the numbers a round draws besides its texts.
    var random: SplitMix64
    /// Rounds run.
    private(set) var rounds = 0
    private(set) var failures: [Failure] = []
    private(set) var failedRounds = 0
    /// The longest round, its number and its inputs.
    private(set) var slowest: (duration: Duration, round: Int, inputs: [[UInt8]]) = (.zero, 0, [])
    private var drawn: [[UInt8]] = []
    private var problems: [String] = []

    private init(seed: UInt64) {
        self.seed = seed
        random = SplitMix64(seed: seed)
    }

    /// One fuzz test runs at a time, beside the concurrency pool.
    private static let gate = DispatchSemaphore(value: 1)

    /// Runs `rounds` rounds of `body` from a generator seeded with `seed`, on a thread of its own
    /// (a loop of seconds would hold one of the concurrency pool's threads, one per core, from the
    /// other tests), after the other fuzz tests' (all at once would take every core).
    static func run(seed: UInt64, rounds: Int, _ body: @escaping @Sendable (inout Fuzzer) -> Void) async throws
        -> Fuzzer
    {
        try await onOwnThread {
            gate.wait()
            defer { gate.signal() }
            var fuzzer = Fuzzer(seed: seed)
            fuzzer.run(rounds: rounds, body)
            return fuzzer
        }
    }

    private mutating func run(rounds count: Int, _ body: (inout Fuzzer) -> Void) {
        for _ in 0..<count {
            drawn.removeAll(keepingCapacity: true)
            problems.removeAll(keepingCapacity: true)
            let start = Self.threadCPUTime()
            body(&self)
            let duration = Self.threadCPUTime() - start
            if duration > slowest.duration {
                slowest = (duration, rounds, drawn)
            }
            if !problems.isEmpty {
                failedRounds += 1
                if failures.count < Self.keptFailures {
                    failures.append(Failure(round: rounds, problems: problems, inputs: drawn))
                }
            }
            rounds += 1
        }
    }

    /// Notes that the round broke an invariant, unless `condition` holds.
    mutating func expect(_ condition: Bool, _ problem: @autoclosure () -> String) {
        if !condition { problems.append(problem()) }
    }

    /// Records an issue for each kept failure (with the seed, the round and its inputs), for the
    /// number of the others, and for a round that took longer than ``slowRound``.
    func recordIssues(sourceLocation: SourceLocation = #_sourceLocation) {
        for failure in failures {
            let inputs = failure.inputs.map { "\"\(Self.escaped($0))\"" }.joined(separator: ", ")
            let problems = failure.problems.joined(separator: "; ")
            #expect(
                failure.problems.isEmpty,
                "seed \(hex(seed)), round \(failure.round): \(problems); input: \(inputs)",
                sourceLocation: sourceLocation)
        }
        if failedRounds > failures.count {
            Issue.record(
                "seed \(hex(seed)): \(failedRounds - failures.count) more rounds broke invariants",
                sourceLocation: sourceLocation)
        }
        let inputs = slowest.inputs.map { "\"\(Self.escaped($0))\"" }.joined(separator: ", ")
        #expect(
            slowest.duration < Self.slowRound,
            "seed \(hex(seed)), round \(slowest.round) took \(slowest.duration); input: \(inputs)",
            sourceLocation: sourceLocation)
    }

    private func hex(_ seed: UInt64) -> String { "0x" + String(seed, radix: 16) }

    /// The CPU time the calling thread has used.
    private static func threadCPUTime() -> Duration {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }
}

// MARK: - Drawing inputs

extension Fuzzer {
    /// Bytes for a parser whose real inputs and words are `corpus`: 8% random bytes, 8% a soup of
    /// its tokens, 4% one of its values as it is, and the rest one of its values mutated one to
    /// four times. Kept as one of the round's inputs.
    mutating func bytes(_ corpus: Corpus) -> [UInt8] {
        let input: [UInt8]
        switch below(100) {
        case 0..<8: input = randomBytes(count: length())
        case 8..<16: input = soup(corpus)
        case 16..<20: input = pick(corpus.values)
        default:
            var mutated = pick(corpus.values)
            for _ in 0...below(4) { mutate(&mutated, corpus) }
            input = mutated
        }
        drawn.append(input)
        return input
    }

    /// ``bytes(_:)`` decoded as UTF-8, invalid sequences replaced, as a transport gives header
    /// values.
    mutating func text(_ corpus: Corpus) -> String {
        Self.decoded(bytes(corpus))
    }

    /// `bytes` decoded as `String(decoding:as:)` decodes them, each maximal invalid sequence
    /// replaced by U+FFFD, without its cost here: the standard library throws inside a repair, and
    /// the testing library captures a backtrace for every throw (a quarter of a second for a few
    /// kilobytes of invalid bytes).
    static func decoded(_ bytes: [UInt8]) -> String {
        let isASCII = bytes.withUnsafeBufferPointer { buffer in
            for byte in buffer where byte >= 0x80 { return false }
            return true
        }
        if isASCII { return String(decoding: bytes, as: UTF8.self) }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let lead = bytes[index]
            if lead < 0x80 {
                output.append(lead)
                index += 1
                continue
            }
            // The length of the sequence `lead` begins, and the range of its second byte (Unicode,
            // table 3-7); no sequence begins with another byte.
            let count: Int
            var low: UInt8 = 0x80
            var high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: count = 2
            case 0xE0: (count, low) = (3, 0xA0)
            case 0xE1...0xEC, 0xEE...0xEF: count = 3
            case 0xED: (count, high) = (3, 0x9F)
            case 0xF0: (count, low) = (4, 0x90)
            case 0xF1...0xF3: count = 4
            case 0xF4: (count, high) = (4, 0x8F)
            default: count = 0
            }
            var length = 1
            while length < count, index + length < bytes.count, (low...high).contains(bytes[index + length]) {
                (low, high) = (0x80, 0xBF)
                length += 1
            }
            if length == count {
                output += bytes[index..<(index + length)]
            } else {
                output += [0xEF, 0xBF, 0xBD]
            }
            index += length
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// A number in `0..<bound`.
    mutating func below(_ bound: Int) -> Int {
        Int(random.next() % UInt64(bound))
    }

    /// True one time in `n`.
    mutating func oneIn(_ n: Int) -> Bool {
        below(n) == 0
    }

    mutating func pick<Element>(_ elements: [Element]) -> Element {
        elements[below(elements.count)]
    }

    /// Mostly short, sometimes hundreds of bytes or a few kilobytes, rarely about 100 KB.
    private mutating func length() -> Int {
        switch below(10_000) {
        case 0..<7_000: below(33)
        case 7_000..<9_900: below(257)
        case 9_900..<9_995: below(4097)
        default: 90_000 + below(20_000)
        }
    }

    /// Random bytes: any byte, or printable ASCII only (which gets further into a parser).
    private mutating func randomBytes(count: Int) -> [UInt8] {
        let printable = oneIn(2)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        for _ in 0..<count {
            let byte = UInt8(truncatingIfNeeded: random.next())
            bytes.append(printable ? 0x20 + byte % 0x5F : byte)
        }
        return bytes
    }

    /// One to twelve of the corpus's tokens, special characters and numbers, run together.
    private mutating func soup(_ corpus: Corpus) -> [UInt8] {
        var bytes: [UInt8] = []
        for _ in 0...below(12) {
            bytes += oneIn(8) ? randomBytes(count: below(5)) : pick(corpus.tokens)
        }
        return bytes
    }

    private mutating func mutate(_ input: inout [UInt8], _ corpus: Corpus) {
        let position = below(input.count + 1)
        switch below(13) {
        case 0 where !input.isEmpty:  // a bit flipped
            input[below(input.count)] ^= 1 << UInt8(below(8))
        case 1 where !input.isEmpty:  // a byte replaced by a special one
            input[below(input.count)] = pick(Self.specialBytes)
        case 2 where !input.isEmpty:  // a byte replaced by any
            input[below(input.count)] = UInt8(truncatingIfNeeded: random.next())
        case 3:  // a special character inserted
            input.insert(contentsOf: pick(Self.specials), at: position)
        case 4:  // a token inserted
            input.insert(contentsOf: pick(corpus.tokens), at: position)
        case 5 where !input.isEmpty:  // a few bytes removed
            let start = below(input.count)
            input.removeSubrange(start..<min(input.count, start + 1 + below(8)))
        case 6:  // cut short: anywhere, or at a separator (before it or after it)
            var cut = position
            if !oneIn(3) {
                while cut < input.count, Self.isAlphanumeric(input[cut]) { cut += 1 }
                cut += below(2)
            }
            input.removeSubrange(min(cut, input.count)...)
        case 7 where !input.isEmpty:  // a part repeated
            let start = below(input.count)
            let part = input[start..<min(input.count, start + 1 + below(16))]
            let copies = oneIn(8) ? 2 + below(64) : 1
            input.insert(contentsOf: Self.repeated(Array(part), count: copies), at: position)
        case 8:  // a number replaced by another (huge, negative, signed, zero-padded), or one inserted
            let number = pick(Self.numbers)
            if let digits = digitRuns(input).randomElement(using: &random) {
                input.replaceSubrange(digits, with: number)
            } else {
                input.insert(contentsOf: number, at: position)
            }
        case 9:  // a long run of one character
            let unit = pick(Self.runUnits)
            input.insert(contentsOf: Self.repeated(unit, count: max(1, runLength() / unit.count)), at: position)
        case 10:  // spliced with another value: this one's start, the other's end
            let other = pick(corpus.values)
            input = Array(input[..<position]) + other[below(other.count + 1)...]
        case 11:  // letters' case changed
            let upper = oneIn(2)
            for index in input.indices where Self.isLetter(input[index]) && oneIn(2) {
                input[index] = upper ? input[index] & ~0x20 : input[index] | 0x20
            }
        default:  // the value's parts in another order: its halves swapped
            input = Array(input[position...] + input[..<position])
        }
    }

    /// The length of an inserted run: mostly tens of bytes, sometimes kilobytes, rarely 100 KB.
    private mutating func runLength() -> Int {
        switch below(4000) {
        case 0..<3900: 8 + below(64)
        case 3900..<3999: 256 + below(4096)
        default: 100_000
        }
    }

    /// `count` copies of `unit`, one after the other.
    private static func repeated(_ unit: [UInt8], count: Int) -> [UInt8] {
        if unit.count == 1 { return [UInt8](repeating: unit[0], count: count) }
        var run: [UInt8] = []
        run.reserveCapacity(unit.count * count)
        for _ in 0..<count { run.append(contentsOf: unit) }
        return run
    }

    private func digitRuns(_ input: [UInt8]) -> [Range<Int>] {
        var runs: [Range<Int>] = []
        var index = 0
        while index < input.count {
            guard Self.isDigit(input[index]) else {
                index += 1
                continue
            }
            let start = index
            while index < input.count, Self.isDigit(input[index]) { index += 1 }
            runs.append(start..<index)
        }
        return runs
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
    private static func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte & ~0x20) }
    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        isDigit(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }
}

// MARK: - What mutations insert

extension Fuzzer {
    /// Characters that parsers of header values treat specially, or should: delimiters, controls,
    /// bytes that are not ASCII or not UTF-8, bidirectional controls, invisible characters,
    /// combining marks, and the dots and slashes of paths.
    static let specials: [[UInt8]] =
        [
            "\"", "\\", ";", ",", "=", "%", "*", "'", ":", "/", "-", ".", "..", " ", "\0", "\r", "\n", "\r\n",
            "\t", "\u{7F}", "\u{85}", "\u{A0}", "\u{202E}", "\u{202D}", "\u{2066}", "\u{200B}", "\u{200D}",
            "\u{FEFF}", "\u{2028}", "\u{301}", "\u{600}", "é", "€", "😀", "🇫🇷", "İ", "ß", "ﬀ", "%00", "%2F", "%2E",
            "%C3%A9", "%FF", "%", "%%", "\\\"", "W/", "GMT", "=?UTF-8?B?", "''",
        ].map { Array($0.utf8) } + [
            [0x80], [0xBF], [0xC0, 0xAF], [0xC3], [0xE2, 0x82], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
            [0xFE], [0xFF],
        ]

    /// Single bytes of ``specials``.
    static let specialBytes: [UInt8] = specials.filter { $0.count == 1 }.map { $0[0] }

    /// Numbers that break careless arithmetic: huge, at and around `Int64`'s limits, negative,
    /// signed, zero-padded, not integers.
    static let numbers: [[UInt8]] = [
        "0", "1", "-1", "-0", "+1", "00", "007", "99", "100", "255", "256", "999", "1000", "9999", "10000",
        "2147483647", "2147483648", "4294967296", "9999999999999999999999", "9223372036854775806",
        "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
        "18446744073709551615", "18446744073709551616", "1e3", "0x10", "1.5", "١٢٣",
    ].map { Array($0.utf8) }

    /// What long runs are made of.
    static let runUnits: [[UInt8]] =
        [
            "a", "9", "0", " ", "\t", ".", "/", "\\", "\"", ";", ",", "=", "%", "-", "*", "'", ":", "\0", "\r\n", "é",
            "\u{301}", "\u{200B}", "\u{202E}",
        ].map { Array($0.utf8) } + [[0xFF]]
}

// MARK: - Reporting

extension Fuzzer {
    /// `bytes` as text to read in a report: printable ASCII as it is (quotes and backslashes
    /// escaped), other bytes as `\xNN`, a run of one to four bytes repeated as `{run×count}`; the
    /// middle of a long input left out.
    static func escaped(_ bytes: [UInt8]) -> String {
        func one(_ byte: UInt8) -> String {
            switch byte {
            case UInt8(ascii: "\""): "\\\""
            case UInt8(ascii: "\\"): "\\\\"
            case 0x20..<0x7F: String(UnicodeScalar(byte))
            default: "\\x" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        var text = ""
        var index = 0
        while index < bytes.count {
            // The unit that repeats the most bytes from here, if it repeats at least 8 times.
            var best: (unit: Int, count: Int) = (1, 1)
            for unit in 1...4 where index + unit <= bytes.count {
                var count = 1
                while index + (count + 1) * unit <= bytes.count,
                    bytes[(index + count * unit)..<(index + (count + 1) * unit)] == bytes[index..<(index + unit)]
                {
                    count += 1
                }
                if count >= 8, count * unit > best.unit * best.count { best = (unit, count) }
            }
            let unit = bytes[index..<(index + best.unit)].map(one).joined()
            text += best.count > 1 ? "{\(unit)×\(best.count)}" : unit
            index += best.unit * best.count
        }
        guard text.count > 1200 else { return text }
        return "\(text.prefix(800))…(\(text.count - 1000) characters left out)…\(text.suffix(200))"
    }
}
