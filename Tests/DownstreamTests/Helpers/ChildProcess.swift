import Foundation

/// A class of the test bundle, to find the bundle by.
private final class TestBundleMarker {}

/// An executable of this package, run as a child process.
struct ChildProcess {
    /// The built executable named `name`, beside the test bundle: the bundle of this code (on
    /// macOS the `.xctest` bundle that a test runner loaded, not the runner, which is
    /// `Bundle.main`; on Linux the test executable's directory).
    static func executable(_ name: String) throws -> URL {
        var directory = Bundle(for: TestBundleMarker.self).bundleURL
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
        private let output: OutputReader?

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
            output = pipe.map { OutputReader($0.read) }
            output?.start()
        }

        /// Kills the process with SIGKILL: no cleanup, no flushing, as a crash or the system would.
        func kill() {
            child.send(SIGKILL)
        }

        /// Reads the output (see `capturingOutput`) until it contains `text` (if given) or ends;
        /// returns what it read.
        func readOutput(until text: String? = nil) async -> String {
            guard let output else { return "" }
            guard let text else { return await output.text() }
            return await output.wait { $0.contains(text) } ?? output.current
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
}
