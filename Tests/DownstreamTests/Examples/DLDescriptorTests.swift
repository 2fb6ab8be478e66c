@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@testable import dl

/// A process out of file descriptors (`ulimit -n`): a connection that cannot get a socket is
/// said to be that, a local shortage (a file error, status 3), not "Couldn't connect" (a network
/// failure, 4), as a partial file that cannot be opened for the same reason already is.
@Suite(.timeLimit(.minutes(3)))
struct DLDescriptorTests {
    @Test func libcurlsFailedConnectWithoutADescriptorIsAFileError() {
        let failure = TransportFailure(
            curlCode: CurlCode.couldNotConnect, osErrno: EMFILE,
            message: "Failed to connect to 127.0.0.1 port 80 after 0 ms: Couldn't connect to server")
        #expect(failure.descriptorShortage == EMFILE)
        let error = DownloadError.network(failure)
        #expect(error.kind == .fileSystem)
        #expect(error.reason.hasPrefix("too many open files: no socket for the connection (errno \(EMFILE)): "))
        #expect(error.reason.hasSuffix(" it may have open (ulimit -n)"))
        #expect(ExitCode.failure(error) == .fileSystem)
        #expect(Describe.reason(error) == "file system error: " + error.reason)

        // A refused connection is the network's, as before.
        let refused = TransportFailure(
            curlCode: CurlCode.couldNotConnect, osErrno: ECONNREFUSED, message: "Couldn't connect to server")
        #expect(refused.descriptorShortage == nil)
        #expect(DownloadError.network(refused).kind == .network)
        #expect(DownloadError.descriptorShortageReason(ENFILE).hasSuffix("the system's table of open files is full"))
    }

    /// dl with few descriptors and eight files at once, for a range of limits: whatever runs out
    /// first (a socket, a partial file, a record), the failure says too many open files, and at
    /// some limit it is a connection's. libcurl only: swift-corelibs-foundation's URLSession gives
    /// no reason with its failed connect, and traps when it has no descriptor itself.
    @Test(.enabled(if: TransportUnderTest.isLibcurlAvailable))
    func runningOutOfDescriptorsIsSaidAsSuch() async throws {
        try await withFixture(startsManager: false) { fixture in
            let urls = (1...8).map { number in
                fixture.serve("/fd/\(number).bin", Body.pattern(count: 1_000_000, seed: 4510 + UInt64(number)))
            }
            var connectionsTold = 0
            for limit in 12...40 {
                try? FileManager.default.removeItem(at: fixture.directory)
                try FileManager.default.createDirectory(at: fixture.directory, withIntermediateDirectories: true)
                let child = try DLChild(
                    ["-nv", "-t", "1", "-j", "8"] + urls.map(\.absoluteString), in: fixture,
                    environment: ["DOWNSTREAM_TRANSPORT": "libcurl"], descriptorLimit: limit)
                defer { child.stop() }
                let ending = await child.child.ending()
                let errors = await child.errors?.text() ?? ""
                let failures = errors.split(separator: "\n").filter { $0.hasPrefix("failed ") }
                for failure in failures {
                    #expect(
                        failure.contains("Too many open files") || failure.contains("too many open files"),
                        "limit \(limit): \(failure)")
                    #expect(
                        !failure.contains("Couldn't connect") && !failure.contains("connection failed"),
                        "limit \(limit): \(failure)")
                }
                connectionsTold += failures.filter { $0.contains("no socket for the connection") }.count
                // A status of its own: 0, or 3 for a file error, never 4 (the network). A child
                // killed by a signal is libdispatch's trap when the main thread exits and no
                // descriptor is left for its event handle; its failures were checked above.
                if case .exited(let status) = ending {
                    #expect([0, 3].contains(status), "limit \(limit): \(status) \(errors)")
                }
            }
            #expect(connectionsTold > 0, "no limit made a connection fail for lack of a descriptor")
        }
    }
}
