/// A command-line option of `dl`: its names, the value it takes, what it does to the options, and
/// its line in `--help`.
///
/// The parser knows options only through a table of these (``Options/table``): adding an option
/// is adding an entry.
struct OptionSpec<Options>: Sendable {
    /// What the option does when it is given.
    ///
    /// The actions throw only ``UsageError``, but their type says `throws`: a typed-throws
    /// function type in this generic enum needs Swift 6's runtime to lay it out
    /// (`swift_getExtendedFunctionTypeMetadata`, macOS 15 and iOS 18), and `dl` would not launch
    /// on macOS 13 or 14.
    enum Action {
        /// An option without a value (`-q`).
        case flag(@Sendable (inout Options) throws -> Void)
        /// An option with a value (`-j 4`, `-j4`, `--max-concurrent-downloads=4`); the string
        /// names the value in `--help` and in errors.
        case value(String, @Sendable (inout Options, String) throws -> Void)
        /// An option whose value is optional and told apart by its form: a value attached
        /// (`-s4`) or apart (`-s 4`) is taken only when `accepts` says it is one; otherwise the
        /// option is given without one (nil) and what follows is read as usual (`-sL`, `-s URL`).
        /// A value after `=` (`--name=value`) is always taken, for the action to check.
        case optionalValue(
            String, accepts: @Sendable (String) -> Bool, @Sendable (inout Options, String?) throws -> Void)
    }

    /// Its names, short (`-j`, `-nc`) and long (`--max-concurrent-downloads`), the first one
    /// shown first in `--help`.
    let names: [String]
    let action: Action
    /// Its heading in `--help`.
    let section: String
    /// What it does, for `--help`.
    let help: String

    /// The value's name in `--help` and in errors, for an option that takes one.
    var valueName: String? {
        switch action {
        case .flag: nil
        case .value(let name, _): name
        case .optionalValue(let name, _, _): "[\(name)]"
        }
    }
}

/// Reads command-line arguments with a table of ``OptionSpec``, as `getopt_long` does: short
/// options alone or clustered (`-qc`), with their value attached or apart (`-j4`, `-j 4`), long
/// options with `=` or apart (`--max-concurrent-downloads=4`), `--` to end the options, and
/// everything else positional (`-` included). An option with an optional value takes one only in
/// the form its spec accepts (``OptionSpec/Action/optionalValue(_:accepts:_:)``).
struct ArgumentParser<Options>: Sendable {
    let specs: [OptionSpec<Options>]
    private let byName: [String: Int]
    /// Options of other tools that this one does not have, each with what to use instead.
    private let unsupported: [String: String]

    init(_ specs: [OptionSpec<Options>], unsupported: [String: String] = [:]) {
        self.specs = specs
        self.unsupported = unsupported
        var byName: [String: Int] = [:]
        for (index, spec) in specs.enumerated() {
            for name in spec.names {
                precondition(byName.updateValue(index, forKey: name) == nil, "option \(name) is in the table twice")
            }
        }
        self.byName = byName
    }

    /// Applies `arguments` to `options`, in order; positional arguments go to `positional`.
    func parse(
        _ arguments: [String], into options: inout Options,
        positional: (inout Options, String) throws(UsageError) -> Void
    ) throws(UsageError) {
        var remaining = arguments[...]
        var optionsEnded = false
        while let argument = remaining.popFirst() {
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
                try positional(&options, argument)
            } else if argument == "--" {
                optionsEnded = true
            } else if argument.hasPrefix("--") {
                try parseLong(argument, rest: &remaining, into: &options)
            } else if let index = byName[argument] {
                // A whole short option, also one of several letters (`-nc`).
                try apply(specs[index], as: argument, attached: nil, takesNext: true, rest: &remaining, into: &options)
            } else {
                try parseCluster(argument, rest: &remaining, into: &options)
            }
        }
    }

    /// The error for `name`, which is not in the table: what to use instead for another tool's
    /// option, else the nearest long option when one is close (a typo, or a prefix of one).
    private func unknown(_ name: String) -> UsageError {
        if let instead = unsupported[name] { return .unknownOption(name, hint: instead) }
        guard name.hasPrefix("--"), name.count > 3 else { return .unknownOption(name, hint: nil) }
        let long = byName.keys.filter { $0.hasPrefix("--") }
        let prefixed = long.filter { $0.hasPrefix(name) }
        if prefixed.count == 1, let only = prefixed.first {
            return .unknownOption(name, hint: "did you mean '\(only)'?")
        }
        let nearest = long.map { ($0, Self.distance(name, $0)) }.filter { $0.1 <= 2 }.min {
            ($0.1, $0.0) < ($1.1, $1.0)
        }
        return .unknownOption(name, hint: nearest.map { "did you mean '\($0.0)'?" })
    }

    /// The edit distance between `a` and `b` (insertions, deletions, substitutions).
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }

    /// `--name`, `--name=value` or `--name value`.
    private func parseLong(
        _ argument: String, rest: inout ArraySlice<String>, into options: inout Options
    ) throws(UsageError) {
        let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        let name = String(parts[0])
        guard let index = byName[name] else { throw unknown(name) }
        try apply(
            specs[index], as: name, attached: parts.count > 1 ? String(parts[1]) : nil, takesNext: true, rest: &rest,
            into: &options)
    }

    /// Short options run together: flags (`-qc`), the last of which may take the rest as its
    /// value (`-j4`, `-qj4`); an optional value is the rest only when its spec accepts it (`-s4`
    /// is a value, `-sL` two flags).
    private func parseCluster(
        _ argument: String, rest: inout ArraySlice<String>, into options: inout Options
    ) throws(UsageError) {
        var letters = argument.dropFirst()
        while let letter = letters.popFirst() {
            let name = "-\(letter)"
            guard let index = byName[name] else {
                let whole = byName[argument] == nil && unsupported[argument] != nil
                throw unknown(letters.count + 2 == argument.count || whole ? argument : name)
            }
            let spec = specs[index]
            switch spec.action {
            case .value:
                try apply(
                    spec, as: name, attached: letters.isEmpty ? nil : String(letters), takesNext: true, rest: &rest,
                    into: &options)
                return
            case .optionalValue(_, let accepts, _) where !letters.isEmpty && accepts(String(letters)):
                try apply(spec, as: name, attached: String(letters), takesNext: false, rest: &rest, into: &options)
                return
            case .flag, .optionalValue:
                // Only the last letter may take the next argument.
                try apply(spec, as: name, attached: nil, takesNext: letters.isEmpty, rest: &rest, into: &options)
            }
        }
    }

    /// Applies `spec`, given as `name` with `attached` as its value if any; `takesNext` says
    /// whether it may take the next argument as its value.
    private func apply(
        _ spec: OptionSpec<Options>, as name: String, attached: String?, takesNext: Bool,
        rest: inout ArraySlice<String>, into options: inout Options
    ) throws(UsageError) {
        switch spec.action {
        case .flag(let apply):
            guard attached == nil else { throw .unexpectedValue(option: name) }
            try UsageError.passed { try apply(&options) }
        case .value(let valueName, let apply):
            // A value apart is the next argument, whatever it looks like (`-i -`).
            guard let value = attached ?? rest.popFirst() else {
                throw .missingValue(option: name, valueName: valueName)
            }
            try UsageError.passed { try apply(&options, value) }
        case .optionalValue(_, let accepts, let apply):
            var value = attached
            if value == nil, takesNext, let next = rest.first, accepts(next) {
                value = rest.popFirst()
            }
            try UsageError.passed { [value] in try apply(&options, value) }
        }
    }
}

extension UsageError {
    /// Runs an option's action, which throws only a `UsageError` (see ``OptionSpec/Action``).
    static func passed(_ action: () throws -> Void) throws(UsageError) {
        do {
            try action()
        } catch let error as UsageError {
            throw error
        } catch {
            preconditionFailure("an option's action threw \(error), not a UsageError")
        }
    }
}

/// A command line `dl` cannot run: it prints the message and exits with status 2.
struct UsageError: Error, Equatable, CustomStringConvertible {
    private enum Reason: Equatable {
        case unknownOption(String, hint: String?)
        case missingValue(option: String, valueName: String)
        case unexpectedValue(option: String)
        case invalidValue(option: String, value: String, expected: String)
        case badNumber(option: String, value: String, minimum: Int)
        case other(String)
    }

    private let reason: Reason

    /// An option that is not in the table, with what to use instead, if anything.
    static func unknownOption(_ name: String, hint: String? = nil) -> UsageError {
        UsageError(reason: .unknownOption(name, hint: hint))
    }

    /// An option that takes a value came last, without one.
    static func missingValue(option: String, valueName: String) -> UsageError {
        UsageError(reason: .missingValue(option: option, valueName: valueName))
    }

    /// A flag was given a value (`--quiet=yes`).
    static func unexpectedValue(option: String) -> UsageError {
        UsageError(reason: .unexpectedValue(option: option))
    }

    /// An option's value is not what it takes (`expected` says what it takes).
    static func invalidValue(option: String, value: String, expected: String) -> UsageError {
        UsageError(reason: .invalidValue(option: option, value: value, expected: expected))
    }

    /// An option's value is not a whole number of at least `minimum`.
    static func badNumber(option: String, value: String, minimum: Int) -> UsageError {
        UsageError(reason: .badNumber(option: option, value: value, minimum: minimum))
    }

    /// Anything else, in words.
    static func other(_ message: String) -> UsageError {
        UsageError(reason: .other(message))
    }

    var description: String {
        switch reason {
        case .unknownOption(let name, let hint): "unknown option '\(name)'" + (hint.map { "; \($0)" } ?? "")
        case .missingValue(let option, let valueName): "option '\(option)' needs a value (\(valueName))"
        case .unexpectedValue(let option): "option '\(option)' takes no value"
        case .invalidValue(let option, let value, let expected): "bad value '\(value)' for '\(option)': \(expected)"
        case .badNumber(let option, let value, let minimum):
            "bad number '\(value)' for '\(option)': it takes a whole number of at least \(minimum)"
        case .other(let message): message
        }
    }
}

extension UsageError {
    /// `value` as a whole number of at least 1, for `option`.
    static func positiveInteger(_ value: String, for option: String) throws(UsageError) -> Int {
        guard let number = Int(value), number >= 1 else {
            throw .badNumber(option: option, value: value, minimum: 1)
        }
        return number
    }
}
