import Downstream

extension Options {
    /// The options of the *Output* section: what dl prints.
    static let outputOptions: [OptionSpec<Options>] = [
        OptionSpec(
            names: ["-q", "--quiet", "--silent"],
            action: .flag { options throws(UsageError) in try options.setMode(.quiet, by: "--quiet") },
            section: "Output", help: "print nothing but failures (on standard error)"),
        OptionSpec(
            names: ["-s"],
            action: .optionalValue("N", accepts: { Options.isWholeNumber($0) }) { options, value throws(UsageError) in
                if let value {
                    try options.setConnections(value, by: "-s")
                } else {
                    try options.setMode(.quiet, by: "--quiet")
                }
            },
            section: "Output",
            help: "alone, or before a URL or an option: -q (curl's -s, also in -sL); followed by a whole number"
                + " (-s 4, -s4): --split N (aria2's -s)"),
        OptionSpec(
            names: ["-nv", "--no-verbose"],
            action: .flag { options throws(UsageError) in try options.setMode(.brief, by: "--no-verbose") },
            section: "Output", help: "print one line per file, saved or failed, and no progress (wget's -nv)"),
        OptionSpec(
            names: ["-v", "--verbose"],
            action: .flag { options throws(UsageError) in try options.setMode(.verbose, by: "--verbose") },
            section: "Output",
            help: "print a line per event, and each request and response head on standard error"
                + " (credentials hidden)"),
        OptionSpec(
            names: ["--json"],
            action: .flag { options throws(UsageError) in try options.setMode(.json, by: "--json") },
            section: "Output", help: "print one JSON object a line, for scripts (see the README)"),
        OptionSpec(
            names: ["--progress-interval"],
            action: .value("SECONDS") { options, value throws(UsageError) in
                guard let seconds = Double(value), seconds >= 0, seconds <= 86_400 else {
                    throw .invalidValue(
                        option: "--progress-interval", value: value, expected: "seconds, from 0 to 86400")
                }
                options.progressInterval = .milliseconds(Int64((seconds * 1000).rounded()))
            },
            section: "Output",
            help: "print progress lines every SECONDS when not on a terminal (default: 5; --json: 1;"
                + " 0: at every change)"),
        OptionSpec(
            names: ["--progress"],
            action: .value("STYLE") { options, value throws(UsageError) in
                options.dotStyle = try DotStyle.parse(value)
            },
            section: "Output",
            help: "bar: live bars on a terminal, lines elsewhere (the default); dot: a dot per KiB, 50 a line"
                + " with the percentage and speed, on a terminal and a pipe alike (wget's); dot:binary,"
                + " dot:mega, dot:giga: 8 KiB, 64 KiB, 1 MiB a dot"),
        OptionSpec(
            names: ["-h", "--help"], action: .flag { $0.showsHelp = true }, section: "Output", help: "show this help"),
        OptionSpec(
            names: ["-V", "--version"], action: .flag { $0.showsVersion = true }, section: "Output",
            help: "show dl's version"),
    ]
}
