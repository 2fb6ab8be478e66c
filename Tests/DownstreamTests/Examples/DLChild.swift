@testable import Downstream
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The `dl` executable run as a user runs it: in the fixture's directory, with its store in the
/// fixture's data directory, its output read as it comes, from a pipe or from a pseudo-terminal.
///
/// Stop it with ``stop()`` when the test ends (also when it fails): a child that still runs
/// is killed.
final class DLChild: Sendable {
    /// Where the child's standard output and error go.
    enum Output {
        /// Two pipes, read apart.
        case pipe
        /// One pseudo-terminal of this size, for both.
        case terminal(width: Int, height: Int)
        /// Standard output to a pipe, standard error to a pseudo-terminal of this size
        /// (`dl -O - URL | tar x` in a terminal).
        case pipeWithErrorsOnTerminal(width: Int, height: Int)
    }

    let child: SpawnedProcess
    /// Standard output (and error, on a terminal).
    let output: OutputReader
    /// Standard error, from a pipe.
    let errors: OutputReader?
    /// The pseudo-terminal's side that reads, for a child on a terminal.
    private let terminal: Int32?

    /// Starts `dl` with `arguments`; `input` is written to its standard input. Its data
    /// directory (`XDG_DATA_HOME`) is the fixture's unless `environment` names one. With
    /// `descriptorLimit`, it may have that many files open (a shell's `ulimit -n` before it). With
    /// `outputLimit`, the reader of a piped standard output closes it after that many bytes, as
    /// `head -c` does; with `closesOutputWhen`, once the text read satisfies it.
    init(
        _ arguments: [String], in fixture: Fixture, output kind: Output = .pipe, input: String? = nil,
        environment added: [String: String] = [:], descriptorLimit: Int? = nil, outputLimit: Int? = nil,
        closesOutputWhen isEnough: (@Sendable (String) -> Bool)? = nil
    ) throws {
        var environment = ProcessInfo.processInfo.environment.merging(added) { $1 }
        if added["XDG_DATA_HOME"] == nil {
            environment["XDG_DATA_HOME"] = Self.dataDirectory(fixture).path
        }
        // The size comes from the terminal, not from the test runner's environment.
        environment["COLUMNS"] = nil
        environment["LINES"] = nil
        environment["TERM"] = "xterm"

        // The child's sides of its streams: closed here once it has them (or could not start).
        var childSides: [Int32] = []
        defer { for descriptor in childSides { close(descriptor) } }
        let inputPipe = try input.map { _ in try SpawnedProcess.pipe() }
        if let inputPipe { childSides.append(inputPipe.read) }
        let (outputSide, errorSide): (Int32, Int32)
        switch kind {
        case .pipe:
            let (outputPipe, errorPipe) = (try SpawnedProcess.pipe(), try SpawnedProcess.pipe())
            childSides += [outputPipe.write, errorPipe.write]
            (outputSide, errorSide) = (outputPipe.write, errorPipe.write)
            output = OutputReader(outputPipe.read, limit: outputLimit, closesWhen: isEnough)
            errors = OutputReader(errorPipe.read)
            terminal = nil
        case .terminal(let width, let height):
            let terminal = try PseudoTerminal(width: width, height: height)
            // Only the child keeps the terminal's other side open: its end is the reader's end.
            childSides.append(terminal.child)
            (outputSide, errorSide) = (terminal.child, terminal.child)
            output = OutputReader(terminal.parent)
            errors = nil
            self.terminal = terminal.parent
        case .pipeWithErrorsOnTerminal(let width, let height):
            let outputPipe = try SpawnedProcess.pipe()
            let terminal = try PseudoTerminal(width: width, height: height)
            childSides += [outputPipe.write, terminal.child]
            (outputSide, errorSide) = (outputPipe.write, terminal.child)
            output = OutputReader(outputPipe.read, limit: outputLimit, closesWhen: isEnough)
            errors = OutputReader(terminal.parent)
            self.terminal = terminal.parent
        }
        var executable = try ChildProcess.executable("dl")
        var arguments = arguments
        if let descriptorLimit {
            arguments = ["-c", "ulimit -n \(descriptorLimit) && exec \"$0\" \"$@\"", executable.path] + arguments
            executable = URL(fileURLWithPath: "/bin/sh")
        }
        do {
            child = try SpawnedProcess(
                executable, arguments, environment: environment,
                directory: fixture.directory, input: inputPipe?.read, output: outputSide, errors: errorSide)
        } catch {
            output.start()
            errors?.start()
            if let inputPipe { close(inputPipe.write) }
            throw error
        }
        output.start()
        errors?.start()
        if let inputPipe, let input {
            let bytes = Array(input.utf8)
            var written = 0
            while written < bytes.count {
                let count = bytes[written...].withUnsafeBytes { write(inputPipe.write, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                written += count
            }
            close(inputPipe.write)
        }
    }

    /// Runs `dl` with `arguments` (and `environment` added to the test's) to its end; returns its
    /// exit status, output and errors.
    static func run(
        _ arguments: [String], in fixture: Fixture, input: String? = nil, environment: [String: String] = [:]
    ) async throws -> (status: Int32, output: String, errors: String) {
        let child = try DLChild(arguments, in: fixture, input: input, environment: environment)
        defer { child.stop() }
        let status = await child.exitStatus()
        return (status, await child.output.text(), await child.errors?.text() ?? "")
    }

    /// The data directory the child gets (`XDG_DATA_HOME`): the test's own, not the user's.
    static func dataDirectory(_ fixture: Fixture) -> URL {
        fixture.storeDirectory.appendingPathComponent("xdg", isDirectory: true)
    }

    /// Where `dl` keeps its store in the fixture.
    static func store(_ fixture: Fixture) -> URL {
        dataDirectory(fixture).appendingPathComponent("Downstream/dl", isDirectory: true)
    }

    /// What dl's store holds but its locks and its list of saved files (`saved.json`): the
    /// records of downloads to continue, and anything set aside.
    static func storedDownloads(_ fixture: Fixture) -> [String] {
        let own: Set = [".lock", ".claims", "saved.json", "saved.lock"]
        return fixture.listing(store(fixture)).filter { !own.contains($0) }
    }

    /// Sends Ctrl-C, or `signal`.
    func interrupt(_ signal: Int32 = SIGINT) {
        child.send(signal)
    }

    /// Gives the child's terminal a new size and tells the child, as a terminal tells the
    /// processes in its foreground (this child has no controlling terminal).
    func resizeTerminal(width: Int, height: Int) {
        guard let terminal else { return }
        var size = winsize(ws_row: UInt16(height), ws_col: UInt16(width), ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(terminal, UInt(TIOCSWINSZ), &size)
        child.send(SIGWINCH)
    }

    /// Kills the child if it still runs.
    func stop() {
        child.send(SIGKILL)
    }

    /// Waits for the child to end; returns its exit status (or the signal's number).
    func exitStatus() async -> Int32 {
        await child.ending().status
    }
}

/// A pseudo-terminal: `parent` reads what a child writes to `child`, a terminal of the given size.
struct PseudoTerminal {
    let parent: Int32
    let child: Int32

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    init(width: Int, height: Int) throws {
        // Glibc's module hides posix_openpt and its companions behind _XOPEN_SOURCE: look them up.
        func function<F>(_ name: String, as type: F.Type) throws -> F {
            guard let function = cFunction(name, as: type) else { throw Failure(description: "no \(name)") }
            return function
        }
        typealias Open = @convention(c) (Int32) -> Int32
        typealias Prepare = @convention(c) (Int32) -> Int32
        typealias Name = @convention(c) (Int32, UnsafeMutablePointer<CChar>?, Int) -> Int32
        let parent = try function("posix_openpt", as: Open.self)(O_RDWR | O_NOCTTY)
        guard parent >= 0 else { throw Failure(description: "posix_openpt: errno \(errno)") }
        var name = [CChar](repeating: 0, count: 256)
        guard try function("grantpt", as: Prepare.self)(parent) == 0,
            try function("unlockpt", as: Prepare.self)(parent) == 0,
            try function("ptsname_r", as: Name.self)(parent, &name, name.count) == 0
        else {
            close(parent)
            throw Failure(description: "cannot prepare the pseudo-terminal: errno \(errno)")
        }
        let child = open(
            String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self),
            O_RDWR | O_NOCTTY)
        guard child >= 0 else {
            close(parent)
            throw Failure(description: "cannot open the terminal: errno \(errno)")
        }
        var size = winsize(ws_row: UInt16(height), ws_col: UInt16(width), ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(parent, UInt(TIOCSWINSZ), &size)
        self.parent = parent
        self.child = child
    }
}
