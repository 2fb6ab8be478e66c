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
    struct Running {
        let process: Process
        private let output: Pipe?
        private let exits: AsyncStream<Int32>

        init(
            _ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
            capturingOutput: Bool = false
        ) throws {
            process = Process()
            process.executableURL = executable
            process.arguments = arguments
            if let environment {
                process.environment = environment
            }
            output = capturingOutput ? Pipe() : nil
            process.standardOutput = output ?? FileHandle.nullDevice
            let (exits, continuation) = AsyncStream<Int32>.makeStream()
            self.exits = exits
            process.terminationHandler = {
                continuation.yield($0.terminationStatus)
                continuation.finish()
            }
            try process.run()
        }

        /// Kills the process with SIGKILL: no cleanup, no flushing, as a crash or the system would.
        func kill() {
            _ = Foundation.kill(process.processIdentifier, SIGKILL)
        }

        /// Reads the output (see `capturingOutput`) until it contains `text` or ends; returns
        /// what it read.
        func readOutput(until text: String) async -> String {
            guard let output else { return "" }
            return await ChildProcess.readOutput(until: text, in: output)
        }

        /// Whether the process ended by SIGKILL.
        var wasKilled: Bool {
            !process.isRunning && process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL
        }

        /// Waits for the process to end; returns its exit status (or signal number).
        func exitStatus() async -> Int32 {
            for await status in exits { return status }
            return process.terminationStatus
        }
    }

    /// Runs `executable` with `arguments` and returns its exit status and standard output.
    static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String]? = nil
    ) async throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment {
            process.environment = environment
        }
        let output = Pipe()
        process.standardOutput = output
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                continuation.resume(throwing: error)
            }
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        return (status, String(decoding: data, as: UTF8.self))
    }

    /// Reads `pipe` until its text contains `text` or it ends, on a thread of its own (the reads
    /// block); returns what it read.
    static func readOutput(until text: String, in pipe: Pipe) async -> String {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var output = ""
                while true {
                    let data = pipe.fileHandleForReading.availableData
                    output += String(decoding: data, as: UTF8.self)
                    if data.isEmpty || output.contains(text) { return continuation.resume(returning: output) }
                }
            }
        }
    }

    /// Reads `pipe` until its text contains `text` (true) or it ends (false).
    static func waitForOutput(containing text: String, in pipe: Pipe) async -> Bool {
        await readOutput(until: text, in: pipe).contains(text)
    }
}
