// Stand-in for Apple's Darwin module: Glibc, plus the Darwin declarations that the package's
// Darwin code uses and that Glibc lacks or declares with another type. Signatures are the Swift
// view of the iOS 16.5 SDK's headers (usr/include; swift-synthesize-interface -module-name Darwin)
// and of its Darwin overlay (usr/lib/swift/Darwin.swiftmodule), with each header's availability.
//
// Which declaration wins. Swift drops a top-level declaration of module N in favour of a
// same-named one of module M (same signature for functions; any type for variables and types)
// when every import path from the file to N passes through M, or when M is the module being
// compiled (lib/AST/NameLookup.cpp, removeShadowedDecls; ImportCache::
// getAllAccessPathsNotShadowedBy). A file that imports only this module therefore sees
// `SOCK_STREAM: Int32`, not Glibc's `SOCK_STREAM: __socket_type`. But Linux Foundation
// re-exports Glibc too: a file that imports Foundation reaches Glibc without passing through
// here, both declarations stay visible, the type checker picks whichever fits (so
// `SOCK_STREAM.rawValue` would pass) and a bare `let kind = SOCK_STREAM` is ambiguous. So
// .ci/check-apple also compiles this file, its declarations made internal, into every module it
// checks: the module being compiled shadows all its imports, and Darwin's declarations win.
// Functions only shadow functions of the same signature: a Darwin function whose parameter types
// differ from Glibc's is an overload beside Glibc's, chosen by its Darwin-typed arguments.
//
// Not declared, though Darwin differs: `mode_t` is UInt16 on Darwin (UInt32 in Glibc), and
// `struct stat`/`statvfs` have other fields; a struct and a function that share a name (`stat`)
// cannot be written in Swift, so Glibc's stay. `ru_maxrss` is bytes on Darwin, KiB on Linux:
// same type. `timeval.tv_usec` is Int32 on Darwin, Int in Glibc.
//
// Functions carry @discardableResult, as Swift imports every C function. Bodies are never run.
// Only what the package uses is here: add a declaration, from the SDK, when the check says a
// Darwin branch needs one.

@_exported import Glibc

// MARK: - Sockets

// <sys/socket.h> `#define SOCK_STREAM 1`: Swift imports it as Int32 (Glibc: an enum case).
public var SOCK_STREAM: Int32 { fatalError() }
// <sys/socket.h> `#define SO_NOSIGPIPE 0x1022` (Apple only).
public var SO_NOSIGPIPE: Int32 { fatalError() }
// <sys/socket.h> `#define SO_NWRITE 0x1024` (Apple only).
public var SO_NWRITE: Int32 { fatalError() }
// <sys/socket.h> `#define MSG_DONTWAIT 0x80`: Int32 (Glibc: Int).
public var MSG_DONTWAIT: Int32 { fatalError() }
// <sys/socket.h> `#define SHUT_WR 1`: Int32 (Glibc: Int).
public var SHUT_WR: Int32 { fatalError() }
// <sys/socket.h> `#define SHUT_RDWR 2`: Int32 (Glibc: Int).
public var SHUT_RDWR: Int32 { fatalError() }
// <netinet/in.h> `#define IPPROTO_TCP 6`: Int32 (Glibc: Int).
public var IPPROTO_TCP: Int32 { fatalError() }
// <sys/_types/_sa_family_t.h> `typedef __uint8_t sa_family_t` (Glibc: UInt16).
public typealias sa_family_t = UInt8

// <netinet/in.h> `struct sockaddr_in`: Darwin's has `sin_len` and a one-byte family.
public struct sockaddr_in {
    // <netinet/in.h> the zero-filled address.
    public init() { fatalError() }
    // <netinet/in.h> the memberwise initializer Swift imports.
    public init(
        sin_len: UInt8, sin_family: sa_family_t, sin_port: in_port_t, sin_addr: in_addr,
        sin_zero: (CChar, CChar, CChar, CChar, CChar, CChar, CChar, CChar)
    ) { fatalError() }
    // <netinet/in.h> `__uint8_t sin_len`.
    public var sin_len: UInt8
    // <netinet/in.h> `sa_family_t sin_family`.
    public var sin_family: sa_family_t
    // <netinet/in.h> `in_port_t sin_port`.
    public var sin_port: in_port_t
    // <netinet/in.h> `struct in_addr sin_addr`.
    public var sin_addr: in_addr
    // <netinet/in.h> `char sin_zero[8]`.
    public var sin_zero: (CChar, CChar, CChar, CChar, CChar, CChar, CChar, CChar)
}

// <sys/poll.h> `typedef unsigned int nfds_t` (Glibc: unsigned long).
public typealias nfds_t = UInt32
// <sys/poll.h> `int poll(struct pollfd *, nfds_t, int)`, with Darwin's nfds_t.
@discardableResult public func poll(_: UnsafeMutablePointer<pollfd>!, _: nfds_t, _: Int32) -> Int32 { fatalError() }

// MARK: - Network interfaces

// <net/if.h> `#define IFF_UP 0x1`: Int32 (Glibc: Int).
public var IFF_UP: Int32 { fatalError() }
// <net/if.h> `#define IFF_LOOPBACK 0x8`: Int32 (Glibc: Int).
public var IFF_LOOPBACK: Int32 { fatalError() }
// <net/if.h> `#define IFF_RUNNING 0x40`: Int32 (Glibc: Int).
public var IFF_RUNNING: Int32 { fatalError() }

// MARK: - Terminals

// <sys/ttycom.h> `#define TIOCGWINSZ _IOR('t', 104, struct winsize)`: Swift imports it as UInt.
public var TIOCGWINSZ: UInt { fatalError() }
// <sys/ttycom.h> `#define TIOCSWINSZ _IOW('t', 103, struct winsize)`: UInt.
public var TIOCSWINSZ: UInt { fatalError() }

// MARK: - Resource usage

// <sys/resource.h> `#define RUSAGE_SELF 0`: Int32 (Glibc: a `__rusage_who` enum case).
public var RUSAGE_SELF: Int32 { fatalError() }
// <sys/resource.h> `#define RUSAGE_CHILDREN -1`: Int32 (Glibc: a `__rusage_who` enum case).
public var RUSAGE_CHILDREN: Int32 { fatalError() }
// <sys/resource.h> `int getrusage(int, struct rusage *)`: the same Swift type as Glibc's, whose
// `who` is `__rusage_who_t`; Darwin's constants are plain Int32.
@discardableResult public func getrusage(_: Int32, _: UnsafeMutablePointer<rusage>!) -> Int32 { fatalError() }

// MARK: - posix_spawn

// <spawn.h> `typedef void *posix_spawn_file_actions_t` (Glibc: a struct). Its functions take a
// pointer to an optional raw pointer.
public typealias posix_spawn_file_actions_t = UnsafeMutableRawPointer
// <spawn.h> `typedef void *posix_spawnattr_t` (Glibc: a struct).
public typealias posix_spawnattr_t = UnsafeMutableRawPointer
// <sys/spawn.h> `#define POSIX_SPAWN_CLOEXEC_DEFAULT 0x4000` (Apple only).
public var POSIX_SPAWN_CLOEXEC_DEFAULT: Int32 { fatalError() }

// <spawn.h> posix_spawn.
@available(macOS 10.5, iOS 2.0, *)
@available(watchOS, unavailable)
@available(tvOS, unavailable)
@discardableResult public func posix_spawn(
    _: UnsafeMutablePointer<pid_t>!, _: UnsafePointer<CChar>!, _: UnsafePointer<posix_spawn_file_actions_t?>!,
    _: UnsafePointer<posix_spawnattr_t?>!, _ __argv: UnsafePointer<UnsafeMutablePointer<CChar>?>!,
    _ __envp: UnsafePointer<UnsafeMutablePointer<CChar>?>!
) -> Int32 { fatalError() }
// <spawn.h> posix_spawn_file_actions_init.
@available(macOS 10.5, iOS 2.0, *)
@available(watchOS, unavailable)
@available(tvOS, unavailable)
@discardableResult public func posix_spawn_file_actions_init(
    _: UnsafeMutablePointer<posix_spawn_file_actions_t?>!
) -> Int32 { fatalError() }
// <spawn.h> posix_spawn_file_actions_destroy.
@available(macOS 10.5, iOS 2.0, *)
@available(watchOS, unavailable)
@available(tvOS, unavailable)
@discardableResult public func posix_spawn_file_actions_destroy(
    _: UnsafeMutablePointer<posix_spawn_file_actions_t?>!
) -> Int32 { fatalError() }
// <spawn.h> posix_spawn_file_actions_adddup2.
@available(macOS 10.5, iOS 2.0, *)
@available(watchOS, unavailable)
@available(tvOS, unavailable)
@discardableResult public func posix_spawn_file_actions_adddup2(
    _: UnsafeMutablePointer<posix_spawn_file_actions_t?>!, _: Int32, _: Int32
) -> Int32 { fatalError() }
// <spawn.h> posix_spawn_file_actions_addopen.
@available(macOS 10.5, iOS 2.0, *)
@available(watchOS, unavailable)
@available(tvOS, unavailable)
@discardableResult public func posix_spawn_file_actions_addopen(
    _: UnsafeMutablePointer<posix_spawn_file_actions_t?>!, _: Int32, _: UnsafePointer<CChar>!, _: Int32, _: mode_t
) -> Int32 { fatalError() }
// <spawn.h> posix_spawn_file_actions_addchdir_np: macOS only.
@available(macOS 10.15, *)
@available(iOS, unavailable)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
@discardableResult public func posix_spawn_file_actions_addchdir_np(
    _: UnsafeMutablePointer<posix_spawn_file_actions_t?>!, _: UnsafePointer<CChar>!
) -> Int32 { fatalError() }
// <spawn.h> posix_spawnattr_init.
@available(macOS 10.5, iOS 2.0, *)
@available(watchOS, unavailable)
@available(tvOS, unavailable)
@discardableResult public func posix_spawnattr_init(
    _: UnsafeMutablePointer<posix_spawnattr_t?>!
) -> Int32 { fatalError() }
// <spawn.h> posix_spawnattr_destroy.
@available(macOS 10.5, iOS 2.0, *)
@available(watchOS, unavailable)
@available(tvOS, unavailable)
@discardableResult public func posix_spawnattr_destroy(
    _: UnsafeMutablePointer<posix_spawnattr_t?>!
) -> Int32 { fatalError() }
// <spawn.h> posix_spawnattr_setflags.
@available(macOS 10.5, iOS 2.0, *)
@available(watchOS, unavailable)
@available(tvOS, unavailable)
@discardableResult public func posix_spawnattr_setflags(
    _: UnsafeMutablePointer<posix_spawnattr_t?>!, _: Int16
) -> Int32 { fatalError() }

// <spawn.h> posix_spawnattr_setsigdefault.
@available(macOS 10.5, iOS 2.0, *)
@available(watchOS, unavailable)
@available(tvOS, unavailable)
@discardableResult public func posix_spawnattr_setsigdefault(
    _: UnsafeMutablePointer<posix_spawnattr_t?>!, _: UnsafePointer<sigset_t>!
) -> Int32 { fatalError() }
// <spawn.h> posix_spawnattr_setsigmask.
@available(macOS 10.5, iOS 2.0, *)
@available(watchOS, unavailable)
@available(tvOS, unavailable)
@discardableResult public func posix_spawnattr_setsigmask(
    _: UnsafeMutablePointer<posix_spawnattr_t?>!, _: UnsafePointer<sigset_t>!
) -> Int32 { fatalError() }

// MARK: - Files

// <sys/stdio.h> `#define RENAME_EXCL 0x00000004`: Int32.
public var RENAME_EXCL: Int32 { fatalError() }
// <sys/stdio.h> `int renamex_np(const char *, const char *, unsigned int)`.
@available(macOS 10.12, iOS 10.0, tvOS 10.0, watchOS 3.0, *)
@discardableResult public func renamex_np(
    _: UnsafePointer<CChar>!, _: UnsafePointer<CChar>!, _: UInt32
) -> Int32 { fatalError() }

// MARK: - Linux names that Darwin does not have

// The package's Linux branches use these; a Darwin branch copied from one of them must fail.
// Not Apple declarations: markers that hide Glibc's.

// Glibc's `SOCK_CLOEXEC`; Darwin has no such socket type flag.
@available(*, unavailable, message: "Linux only: Darwin has no SOCK_CLOEXEC (set FD_CLOEXEC with fcntl)")
public var SOCK_CLOEXEC: Int32 { fatalError() }
// Glibc's `__rusage_who`; Darwin's RUSAGE_ constants are Int32.
@available(*, unavailable, message: "Linux only: Darwin's RUSAGE_SELF and RUSAGE_CHILDREN are Int32")
public typealias __rusage_who = Int32
// Glibc's `__rusage_who_t`; Darwin's getrusage takes an Int32.
@available(*, unavailable, message: "Linux only: Darwin's getrusage takes an Int32")
public typealias __rusage_who_t = Int32
