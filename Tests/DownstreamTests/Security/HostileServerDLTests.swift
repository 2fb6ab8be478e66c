@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

/// The testing server's hostile behaviours against `dl`, on each transport: the typed error in dl's
/// words, its exit status (a server's broken answer is a protocol error, 7, never a network
/// failure to retry), and the peak memory of the process as the kernel counted it.
@Suite(.timeLimit(.minutes(3)))
struct HostileServerDLTests {
    /// `DOWNSTREAM_TRANSPORT` for each transport: libcurl (the default on Linux, where it loads) and
    /// URLSession.
    static let transports: [String] =
        TransportUnderTest.isLibcurlAvailable ? ["libcurl", "urlsession"] : ["urlsession"]

    @Test(arguments: transports)
    func aCompressionBombIsRefusedBeforeAnyByteIsWritten(_ transport: String) async throws {
        try await withFixture(startsManager: false) { fixture in
            let url = fixture.serve("/bomb.bin", .gzippedZeros(count: 1 << 30)) {
                $0.extraHeaders["Content-Encoding"] = "gzip"
            }
            let fetched = try await HostileClient.fetch(url, in: fixture, transport: transport)
            #expect(fetched.kind == "unexpected response", "\(fetched.line)")
            #expect(fetched.partial <= 0, "\(fetched.line)")
            #expect(fetched.peakBytes < HostileClient.peakLimit, "\(fetched.line)")

            let run = try await DLChild.run(
                ["-o", "bomb.bin", url.absoluteString], in: fixture, environment: ["DOWNSTREAM_TRANSPORT": transport])
            #expect(run.status == 7, "\(run.output)\(run.errors)")
            #expect(
                run.errors.contains(
                    "failed bomb.bin: unexpected response: the server sent the body compressed (Content-Encoding: gzip),"
                        + " which the request did not accept (--compressed takes it, decoded)"), "\(run.errors)")
            #expect(!fixture.listing().contains("bomb.bin"))
            // Asked once by each: a server's choice is not a failure to retry.
            #expect(fixture.server.requests("/bomb.bin").count == 2)
        }
    }

    @Test(arguments: transports)
    func anAcceptedCompressionBombStopsAtTheLimitWithNothingPastIt(_ transport: String) async throws {
        try await withFixture(startsManager: false) { fixture in
            let url = fixture.serve("/bomb.bin", .gzippedZeros(count: 1 << 30)) {
                $0.extraHeaders["Content-Encoding"] = "gzip"
            }
            let fetched = try await HostileClient.fetch(
                url, in: fixture, transport: transport, ["--compressed", "yes", "--max-filesize", "20971520"])
            #expect(fetched.kind == "file too large", "\(fetched.line)")
            // Rejected bytes are deleted (the request's default).
            #expect(fetched.partial == -1, "\(fetched.line)")
            #expect(fetched.peakBytes < HostileClient.peakLimit, "\(fetched.line)")

            let run = try await DLChild.run(
                ["--compressed", "--max-filesize", "20M", "-o", "bomb.bin", url.absoluteString], in: fixture,
                environment: ["DOWNSTREAM_TRANSPORT": transport])
            #expect(run.status == 3, "\(run.output)\(run.errors)")
            #expect(
                run.errors.contains(
                    "failed bomb.bin: file too large: the body goes on past 20971520 bytes, the most the request"
                        + " allows (--max-filesize)"), "\(run.errors)")
            #expect(!fixture.listing().contains { $0.hasPrefix("bomb.bin") })
        }
    }

    /// A hostile behaviour (on every request: the client's and dl's), what the library fails
    /// with (its kind and the start of its reason, whatever transport reads it) and the status dl
    /// exits with.
    struct Hostility: Sendable, CustomTestStringConvertible {
        var name: String
        var configure: @Sendable (inout Route) -> Void
        var kind: DownloadError.Kind
        var reason: String
        var exitStatus: Int32
        /// The request timeout, in seconds: what a trickle is given before it counts as stalled;
        /// ample for the others, whose answer ends them (a second was too short for a 2 MB header
        /// line read over URLSession with both cores busy).
        var timeout = 10

        var testDescription: String { name }
    }

    static let hostilities: [Hostility] = [
        Hostility(
            name: "endless headers", configure: { $0.faults = Array(repeating: .endlessHeaders(), count: 8) },
            kind: .unexpectedResponse,
            reason: "the response cannot be read: the server's response head is larger than ", exitStatus: 7),
        Hostility(
            name: "a header line of 2 MB",
            configure: { $0.faults = Array(repeating: .oversizedHeader(2 << 20), count: 8) },
            kind: .unexpectedResponse,
            reason: "the response cannot be read: a header line of the response is longer than libcurl takes",
            exitStatus: 7),
        Hostility(
            name: "a chunk of 2^80 bytes", configure: { $0.faults = Array(repeating: .hugeChunkSize, count: 8) },
            kind: .unexpectedResponse,
            reason: "the response cannot be read: Too long hexadecimal number in chunked-encoding", exitStatus: 7),
        Hostility(
            name: "a head that trickles",
            configure: { $0.faults = Array(repeating: .endlessHeaders(bytesPerSecond: 50), count: 8) },
            kind: .network, reason: "", exitStatus: 4, timeout: 1),
        Hostility(
            name: "a Location that is not a URL", configure: { $0.redirect = (302, "http://[::1") },
            kind: .unexpectedResponse, reason: "the server redirected to a malformed Location: http://[::1",
            exitStatus: 7),
    ]

    @Test(arguments: transports, 0..<hostilities.count)
    func aHostileServerIsATypedErrorInBoundedMemory(_ transport: String, _ index: Int) async throws {
        let hostility = Self.hostilities[index]
        try await withFixture(startsManager: false) { fixture in
            let url = fixture.serve("/hostile.bin", .pattern(count: 100_000, seed: 791), hostility.configure)
            let timeout = String(hostility.timeout)
            let fetched = try await HostileClient.fetch(url, in: fixture, transport: transport, ["--timeout", timeout])
            #expect(fetched.kind == hostility.kind.description, "\(hostility.name): \(fetched.line)")
            #expect(fetched.line.contains("reason=" + hostility.reason), "\(hostility.name): \(fetched.line)")
            #expect(fetched.peakBytes < HostileClient.peakLimit, "\(hostility.name): \(fetched.line)")
            #expect(fetched.partial <= 0, "\(hostility.name): \(fetched.line)")

            let run = try await DLChild.run(
                ["-T", timeout, "-t", "1", "-o", "hostile.bin", url.absoluteString], in: fixture,
                environment: ["DOWNSTREAM_TRANSPORT": transport])
            #expect(run.status == hostility.exitStatus, "\(hostility.name): \(run.output)\(run.errors)")
            #expect(run.errors.contains("failed hostile.bin: "), "\(hostility.name): \(run.errors)")
            // In words, whichever transport read it.
            #expect(
                hostility.reason.isEmpty || run.errors.contains(hostility.reason), "\(hostility.name): \(run.errors)")
            #expect(!run.errors.contains("\u{1B}"))
        }
    }

    @Test(arguments: transports)
    func anAcceptedGzipFileIsSavedDecodedInTheMemoryOfAnyFile(_ transport: String) async throws {
        try await withFixture(startsManager: false) { fixture in
            let file = Body.pattern(count: 16_000_000, seed: 790)
            let url = fixture.serve("/file.txt", .gzip(file)) { $0.extraHeaders["Content-Encoding"] = "gzip" }
            let plainURL = fixture.serve("/plain.txt", file)
            let fetched = try await HostileClient.fetch(
                url, in: fixture, transport: transport, ["--compressed", "yes"])
            #expect(fetched.kind == nil, "\(fetched.line)")
            try file.expectMatches(fixture.file("fetched"))
            let plain = try await HostileClient.fetch(plainURL, in: fixture, transport: transport)
            #expect(plain.kind == nil, "\(plain.line)")
            // As for the same file uncompressed, give or take 8 MiB.
            #expect(fetched.peakBytes < plain.peakBytes + 8 << 20, "\(fetched.line) against \(plain.line)")

            let run = try await DLChild.run(
                ["--compressed", "-o", "file.txt", url.absoluteString], in: fixture,
                environment: ["DOWNSTREAM_TRANSPORT": transport])
            #expect(run.status == 0, "\(run.output)\(run.errors)")
            try file.expectMatches(fixture.file("file.txt"))
        }
    }
}

/// The test client's `fetch`: one download as a request with hostile-proof settings, in a child
/// process that reports the typed error and its own peak memory (`VmHWM`: the peak of its own
/// memory, which the parent's `wait4` cannot give: a child started by `vfork` and `exec` inherits
/// its parent's high-water mark).
enum HostileClient {
    /// What a process may peak at while it refuses what a server sends: a Swift process with
    /// Foundation and a download peaks at 35-60 MiB.
    static let peakLimit: Int64 = 64 << 20

    struct Fetched {
        var line: String
        /// The error's kind, or nil when the file was saved.
        var kind: String?
        var peakBytes: Int64
        /// The partial file's length after a failure (-1: none).
        var partial: Int64
    }

    /// Downloads `url` to the fixture's file `file` over `transport` with `options`.
    static func fetch(
        _ url: URL, in fixture: Fixture, transport: String, _ options: [String] = [], to file: String = "fetched"
    ) async throws -> Fetched {
        var environment = ProcessInfo.processInfo.environment
        environment["DOWNSTREAM_TRANSPORT"] = transport
        let (_, output) = try await ChildProcess.run(
            try ChildProcess.executable("DownstreamTestClient"),
            ["fetch", url.absoluteString, fixture.file(file).path] + options, environment: environment)
        let line = output.split(separator: "\n").last.map(String.init) ?? output
        // `ok peak-kib=… bytes=…`, or `failed`, `kind=…`, `peak-kib=…`… separated by tabs.
        var fields: [String: String] = [:]
        for field in line.split(whereSeparator: { $0 == "\t" || (!line.hasPrefix("failed") && $0 == " ") }) {
            guard let equals = field.firstIndex(of: "=") else { continue }
            fields[String(field[..<equals])] = String(field[field.index(after: equals)...])
        }
        return Fetched(
            line: line, kind: line.hasPrefix("failed") ? fields["kind"] : nil,
            peakBytes: (fields["peak-kib"].flatMap { Int64($0) } ?? Int64.max / 1024) * 1024,
            partial: fields["partial"].flatMap { Int64($0) } ?? -1)
    }
}
