import Foundation

/// An executable of this package, run as a child process.
struct ChildProcess {
    /// The built executable named `name`, beside the test bundle.
    static func executable(_ name: String) throws -> URL {
        var directory = Bundle.main.bundleURL
        while !directory.path.isEmpty, directory.path != "/" {
            let candidate = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: name])
    }

    /// A started child process.
    struct Running: Sendable {
        let child: SpawnedProcess
        private let output: Int32?

        init(
            _ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
            capturingOutput: Bool = false
        ) throws {
            let pipe = capturingOutput ? try SpawnedProcess.pipe() : nil
            defer { if let pipe { close(pipe.write) } }
            do {
                // Its errors go where the test runner's go: seen when a test fails.
                child = try SpawnedProcess(
                    executable, arguments, environment: environment, output: pipe?.write, errors: STDERR_FILENO)
            } catch {
                if let pipe { close(pipe.read) }
                throw error
            }
            output = pipe?.read
        }

        /// Kills the process with SIGKILL: no cleanup, no flushing, as a crash or the system would.
        func kill() {
            child.send(SIGKILL)
        }

        /// Reads the output (see `capturingOutput`) until it contains `text` (if given) or ends;
        /// returns what it read. Call it once.
        func readOutput(until text: String? = nil) async -> String {
            guard let output else { return "" }
            return await ChildProcess.readOutput(until: text, from: output)
        }

        /// Waits for the process to end; returns how.
        func ending() async -> SpawnedProcess.Ending {
            await child.ending()
        }
    }

    /// Runs `executable` with `arguments` and returns its exit status and standard output.
    static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String]? = nil
    ) async throws -> (status: Int32, output: String) {
        let running = try Running(executable, arguments, environment: environment, capturingOutput: true)
        let output = await running.readOutput()
        return (await running.ending().status, output)
    }

    /// Reads `descriptor` until its text contains `text` (if given) or it ends, on a thread of
    /// its own (the reads block), and closes it; returns what it read.
    static func readOutput(until text: String?, from descriptor: Int32) async -> String {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                defer { close(descriptor) }
                var bytes: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 65_536)
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                    if count < 0, errno == EINTR { continue }
                    if count > 0 { bytes += buffer[0..<count] }
                    let output = String(decoding: bytes, as: UTF8.self)
                    if count <= 0 || text.map(output.contains) == true {
                        return continuation.resume(returning: output)
                    }
                }
            }
        }
    }
}
