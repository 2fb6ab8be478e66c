@testable import Downstream
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A child process started with `posix_spawn`: its standard streams are the descriptors given
/// (`/dev/null` otherwise) and it inherits no other descriptor of the test process.
///
/// Not Foundation's `Process`: in swift-corelibs-foundation 6.3.1, `Process.run()` lists
/// `/proc/self/fd` by copying each entry's 256-byte name out of a buffer that can end sooner, and
/// crashes now and then when the process has many descriptors open, as this parallel suite has
/// (its servers' sockets). Here the child closes what it inherited itself
/// (`posix_spawn_file_actions_addclosefrom_np`), with no listing at all.
final class SpawnedProcess: Sendable {
    /// How a child ended.
    enum Ending: Equatable, Sendable {
        /// It exited with this status.
        case exited(Int32)
        /// A signal ended it.
        case signalled(Int32)

        /// The exit status, or the signal's number, as `Process.terminationStatus` says it.
        var status: Int32 {
            switch self {
            case .exited(let status), .signalled(let status): status
            }
        }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The child's process identifier.
    let pid: pid_t

    private struct State {
        var ending: SpawnedProcess.Ending?
        var waiters: [@Sendable (SpawnedProcess.Ending) -> Void] = []
    }

    private let state = Locked(State())

    /// Starts `executable` with `arguments`, in `directory` (this process's otherwise), with
    /// `environment` (this process's otherwise); `input`, `output` and `errors` become its
    /// standard streams. The caller keeps and closes its descriptors.
    init(
        _ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
        directory: URL? = nil, input: Int32? = nil, output: Int32? = nil, errors: Int32? = nil
    ) throws {
        var actions = Self.noActions
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (descriptor, target) in [(input, STDIN_FILENO), (output, STDOUT_FILENO), (errors, STDERR_FILENO)] {
            let result =
                if let descriptor {
                    posix_spawn_file_actions_adddup2(&actions, descriptor, target)
                } else {
                    posix_spawn_file_actions_addopen(
                        &actions, target, "/dev/null", target == STDIN_FILENO ? O_RDONLY : O_WRONLY, 0)
                }
            guard result == 0 else { throw Failure(description: "file action for \(target): error \(result)") }
        }
        // A group of its own, as `Process` does: the runner's terminal signals are not the child's.
        var flags = Int16(POSIX_SPAWN_SETPGROUP)
        #if canImport(Darwin)
            flags |= Int16(POSIX_SPAWN_CLOEXEC_DEFAULT)
            if let directory {
                #if os(macOS)
                    guard posix_spawn_file_actions_addchdir_np(&actions, directory.path) == 0 else {
                        throw Failure(description: "cannot start in \(directory.path)")
                    }
                #else
                    // posix_spawn_file_actions_addchdir_np is macOS only.
                    throw Failure(description: "cannot start in \(directory.path): no addchdir_np on this platform")
                #endif
            }
        #else
            guard let closeFrom = Self.closeFrom, closeFrom(&actions, 3) == 0 else {
                throw Failure(description: "posix_spawn_file_actions_addclosefrom_np is missing (glibc < 2.34)")
            }
            if let directory {
                guard let changeDirectory = Self.changeDirectory, changeDirectory(&actions, directory.path) == 0
                else { throw Failure(description: "cannot start in \(directory.path)") }
            }
        #endif
        var attributes = Self.noAttributes
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // A child inherits the signals its parent ignores and the spawning thread's mask: it
        // starts with the usual dispositions and nothing blocked, whatever a library of this
        // process did (the test process once had SIGPIPE ignored when it spawned a client).
        var usual = sigset_t()
        sigemptyset(&usual)
        for signal in [SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT] { sigaddset(&usual, signal) }
        posix_spawnattr_setsigdefault(&attributes, &usual)
        var nothing = sigset_t()
        sigemptyset(&nothing)
        posix_spawnattr_setsigmask(&attributes, &nothing)
        flags |= Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK)
        posix_spawnattr_setflags(&attributes, flags)

        let argv = [executable.path] + arguments
        let environment = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        var pid = pid_t()
        let result = Self.withCStrings(argv) { argv in
            Self.withCStrings(environment) { environment in
                posix_spawn(&pid, executable.path, &actions, &attributes, argv, environment)
            }
        }
        guard result == 0 else {
            throw Failure(description: "cannot start \(executable.path): \(String(cString: strerror(result)))")
        }
        let child = pid
        self.pid = child
        // Reaps this one child (never another's) on a thread of its own: `waitpid` blocks.
        Thread.detachNewThread { [self] in
            var status: Int32 = 0
            while waitpid(child, &status, 0) < 0, errno == EINTR {}
            // WIFEXITED/WEXITSTATUS/WTERMSIG, which Swift does not import.
            let signal = status & 0x7f
            let ending: Ending = signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
            let waiters = state.withLock { state in
                state.ending = ending
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter(ending) }
        }
    }

    /// Whether the child has ended (and was reaped).
    var hasEnded: Bool {
        state.withLock { $0.ending != nil }
    }

    /// Sends `signal` to the child, unless it has ended.
    func send(_ signal: Int32) {
        state.withLock { state in
            if state.ending == nil { _ = kill(pid, signal) }
        }
    }

    /// Waits for the child to end.
    func ending() async -> Ending {
        await withCheckedContinuation { continuation in
            whenEnded { continuation.resume(returning: $0) }
        }
    }

    /// Blocks this thread until the child ends (for code that cannot be async).
    func waitForEnding() -> Ending {
        let ended = DispatchSemaphore(value: 0)
        let ending = Locked<Ending?>(nil)
        whenEnded {
            ending.withLock { [value = $0] in $0 = value }
            ended.signal()
        }
        ended.wait()
        return ending.withLock { $0! }
    }

    /// Calls `body` once the child has ended (at once if it has).
    private func whenEnded(_ body: @escaping @Sendable (Ending) -> Void) {
        let ending = state.withLock { state in
            if state.ending == nil { state.waiters.append(body) }
            return state.ending
        }
        if let ending { body(ending) }
    }

    /// A pipe for a child's standard stream. (No child inherits it otherwise: every child
    /// started here closes what it inherits.)
    static func pipe() throws -> (read: Int32, write: Int32) {
        var descriptors: [Int32] = [0, 0]
        guard Foundation.pipe(&descriptors) == 0 else { throw Failure(description: "pipe: errno \(errno)") }
        return (descriptors[0], descriptors[1])
    }

    private static func withCStrings<R>(
        _ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> R
    ) -> R {
        let pointers = strings.map { strdup($0) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }

    #if canImport(Darwin)
        private static var noActions: posix_spawn_file_actions_t? { nil }
        private static var noAttributes: posix_spawnattr_t? { nil }
    #else
        private static var noActions: posix_spawn_file_actions_t { .init() }
        private static var noAttributes: posix_spawnattr_t { .init() }

        // Glibc's module does not show these two (glibc 2.34 and 2.29): look them up.
        private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        private typealias ChangeDirectory =
            @convention(c) (
                UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>
            ) -> Int32
        private static let closeFrom = cFunction("posix_spawn_file_actions_addclosefrom_np", as: CloseFrom.self)
        private static let changeDirectory = cFunction(
            "posix_spawn_file_actions_addchdir_np", as: ChangeDirectory.self)
    #endif
}
