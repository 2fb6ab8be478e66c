@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

/// A file over several connections checks its host's rule on every connection, not only on the
/// first: the test server behind a TLS front (``TLSFront``) whose first connection shows one key
/// and every later connection another, both signed by the test's CA.
@Suite(
    .timeLimit(.minutes(1)), .enabled(if: TLSServer.isAvailable, "the openssl command is not installed"),
    .enabled(if: TLSFront.isAvailable, "OpenSSL's libssl cannot be loaded"),
    .enabled(if: TrustTests.managersUseLibcurl, "libcurl is the manager's transport on Linux only"))
struct SegmentedTrustTests {
    static let body = Body.pattern(count: 2_000_000, seed: 2401)

    /// What the server holds back, so that the connections' order does not depend on the
    /// machine's timing.
    enum Holding {
        /// The four segment requests, until all four arrived: four connections at once.
        case segmentsUntilTheyMeet
        /// The first request, after 300 KiB, for good: the download can only end on a later
        /// connection (before, the first connection could bring the whole file before a later
        /// one was refused, and a run saw no refusal).
        case firstRequest
    }

    /// Downloads the body over four connections with `pins` (base64) in the rule of 127.0.0.1;
    /// the outcome, the front's handshakes and what the store keeps of the download.
    static func download(pins: [String], certificates directory: URL, holding: Holding) async throws -> (
        outcome: Result<Data, DownloadError>, handshakes: Int, keptBytes: Int64
    ) {
        try await withFixture({
            $0.network.maximumConnectionsPerFile = 4
            $0.network.minimumSegmentSize = 256 << 10
            $0.network.maximumConnectionsPerHost = 6
            $0.retry.maximumRetries = 0
            $0.trust.rules = [
                TrustRule(
                    host: "127.0.0.1", additionalAuthorities: [.file(directory.appendingPathComponent("ca.pem"))],
                    publicKeyPins: pins.compactMap { PublicKeyPin(sha256Base64: $0) })
            ]
        }) { fixture in
            let certificates = ["server", "other"].map {
                (directory.appendingPathComponent("\($0).pem"), directory.appendingPathComponent("\($0).key"))
            }
            let front = try TLSFront(upstreamPort: fixture.server.port, certificates: certificates)
            defer { front.stop() }
            _ = fixture.serve("/seg.bin", Self.body) {
                switch holding {
                case .segmentsUntilTheyMeet: $0.faults = [.none] + Array(repeating: .holdAfter(1000), count: 4)
                case .firstRequest: $0.faults = [.holdAfter(300 << 10)]
                }
            }
            let download = await fixture.manager.download(
                from: front.url("/seg.bin"), to: .file(fixture.file("seg.bin")))
            if holding == .segmentsUntilTheyMeet {
                #expect(await fixture.server.waitForRequests(5, path: "/seg.bin"))
                fixture.server.release("/seg.bin")
            }
            // The file's bytes, read while the fixture's folder is there.
            let outcome = await download.outcome().map { try? Data(contentsOf: $0) }.map { $0 ?? Data() }
            let resume = fixture.storedRecord(download.id)?.resume
            let kept = resume.map { $0.segments?.reduce(0) { $0 + $1.durable } ?? $0.durableLength } ?? 0
            return (outcome, front.handshakes, kept)
        }
    }

    @Test func everyConnectionOfASegmentedDownloadChecksThePins() async throws {
        let directory = try await TLSServer.makeCertificates()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try await TLSServer.publicKeyPin(of: "server", in: directory)
        let later = try await TLSServer.publicKeyPin(of: "other", in: directory)

        // The CA vouches for both keys: four connections, the file whole.
        let trusted = try await Self.download(pins: [], certificates: directory, holding: .segmentsUntilTheyMeet)
        expectSameBytes(try trusted.outcome.get(), Self.body.bytes(0..<Self.body.count))
        #expect(trusted.handshakes >= 4, "the segments did not come over connections of their own")

        // Pinned to the first key: the later connections are refused, the first one's bytes kept.
        let pinned = try await Self.download(pins: [first], certificates: directory, holding: .firstRequest)
        guard case .failure(let error) = pinned.outcome else { Issue.record("a segment skipped the pin"); return }
        #expect(error.kind == .serverTrustFailed, "\(error)")
        #expect(error.reason.contains("rule for 127.0.0.1 (1 authority, 1 pin)"), "\(error.reason)")
        #expect(pinned.keptBytes >= 256 << 10)

        // Either key (a rotation under way): whole again.
        let rotating = try await Self.download(
            pins: [later, first], certificates: directory, holding: .segmentsUntilTheyMeet)
        expectSameBytes(try rotating.outcome.get(), Self.body.bytes(0..<Self.body.count))
    }
}
