import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The `dl` command: reads the command line, then runs a ``Session``.
@MainActor
enum DL {
    /// Runs `dl` with `arguments` (without the program's name); returns its exit status.
    static func run(_ arguments: [String]) async -> ExitCode {
        let environment = ProcessInfo.processInfo.environment
        let plan: Plan
        do {
            let options = try Options.parse(arguments)
            if options.showsHelp {
                Terminal.write(Help.text, to: STDOUT_FILENO)
                return .success
            }
            if options.showsVersion {
                Terminal.write(Help.version + "\n", to: STDOUT_FILENO)
                return .success
            }
            var entries: [Entry] = []
            for file in options.inputFiles {
                entries += try InputFile.parse(try read(file), name: file == "-" ? "standard input" : file)
            }
            var made = try Plan.make(
                options, inputs: entries,
                currentDirectory: URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true))
            if let credentials = made.credentials, credentials.password == nil {
                made.credentials = try credentials.withPassword(askingOn: Credentials.terminal())
            }
            try made.http.load(environment: environment)
            plan = made
            if plan.mode == .verbose {
                for notice in plan.notices { Terminal.write("dl: \(notice)\n", to: STDERR_FILENO) }
            }
        } catch let error as UsageError {
            Terminal.write("dl: \(error)\nTry 'dl --help' for more information.\n", to: STDERR_FILENO)
            return .usage
        } catch {
            Terminal.write("dl: \(error)\n", to: STDERR_FILENO)
            return .fileSystem
        }

        if let path = plan.standardOutputPath {
            // `-O /dev/null`, a named pipe: standard output is made that file, written as it comes.
            let descriptor = open(path, O_WRONLY)
            guard descriptor >= 0, dup2(descriptor, STDOUT_FILENO) >= 0 else {
                Terminal.write("dl: cannot write to \(path): \(String(cString: strerror(errno)))\n", to: STDERR_FILENO)
                return .fileSystem
            }
            close(descriptor)
        }
        // A reader of the output that goes away does not end the downloads.
        signal(SIGPIPE, SIG_IGN)
        // With the file on standard output (-O -), reports go to standard error, as curl's do.
        let reports = plan.writesToStandardOutput ? STDERR_FILENO : STDOUT_FILENO
        // The file on a terminal (-O -, text or forced): no bar drawn between its bytes, as curl
        // draws none; only the last lines.
        let fileOnTerminal = plan.writesToStandardOutput && isatty(STDOUT_FILENO) == 1
        let isTerminal =
            plan.mode == .automatic && !fileOnTerminal && plan.dotStyle == nil
            && Terminal.isTerminal(reports, environment: environment)
        let reporter: any Reporter
        switch plan.mode {
        case .automatic where plan.dotStyle != nil, .verbose where plan.dotStyle != nil:
            reporter = DotReporter(style: plan.dotStyle ?? .standard)
        case .quiet:
            reporter = QuietReporter()
        case .brief:
            reporter = BriefReporter()
        case .json:
            reporter = JSONReporter(period: plan.progressInterval ?? .seconds(1))
        case .automatic where fileOnTerminal:
            reporter = BriefReporter()
        case .automatic where isTerminal:
            let size = Terminal.size(of: reports, environment: environment)
            reporter = TerminalReporter(width: size.width, height: size.height)
        case .automatic, .verbose:
            reporter = PlainReporter(period: plan.progressInterval ?? .seconds(5))
        }
        return await Session(plan: plan, reporter: reporter, isTerminal: isTerminal, environment: environment).run()
    }

    /// An input file that cannot be read.
    struct InputError: Error, CustomStringConvertible {
        var description: String
    }

    /// The text of input file `path`; `-` is standard input.
    private static func read(_ path: String) throws(InputError) -> String {
        if path == "-" {
            return String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw InputError(description: "cannot read the input file '\(path)'")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
