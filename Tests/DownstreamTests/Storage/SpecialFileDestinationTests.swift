@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A destination that is a device, a pipe or a socket is never replaced, whatever the conflict
/// policy: a rename would put a regular file in its place (a process allowed to write in `/dev`
/// turned `/dev/null` into a file that way).
@Suite(.timeLimit(.minutes(1)))
struct SpecialFileDestinationTests {
    /// Whether `url` is still a pipe.
    static func isPipe(_ url: URL) -> Bool {
        var info = stat()
        return lstat(url.path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO
    }

    @Test func aPipeAtTheDestinationFailsBeforeTheDownloadAndStaysAPipe() async throws {
        try await withFixture { fixture in
            let url = fixture.serve("/piped.bin", .pattern(count: 100_000, seed: 980))
            let pipe = fixture.file("piped.bin")
            #expect(mkfifo(pipe.path, 0o600) == 0)
            let download = await fixture.manager.download(from: url, to: .file(pipe, ifExists: .replace))
            await #expect {
                _ = try await download.fileURL
            } throws: { error in
                let error = error as? DownloadError
                return error?.kind == .fileSystem && error?.reason.contains("it is a pipe, not a regular file") == true
            }
            #expect(Self.isPipe(pipe))
            #expect(fixture.server.requests("/piped.bin").isEmpty, "refused before any request")
        }
    }

    @Test func aPipeThatAppearedMeanwhileIsNotReplacedAtTheEnd() async throws {
        try await withFixture { fixture in
            let url = fixture.serve("/late.bin", .pattern(count: 100_000, seed: 981)) {
                $0.faults = [.holdAfter(50_000)]
            }
            let pipe = fixture.file("late.bin")
            let download = await fixture.manager.download(from: url, to: .file(pipe, ifExists: .replace))
            await download.waitForBytes(50_000)
            #expect(mkfifo(pipe.path, 0o600) == 0)
            fixture.server.release("/late.bin")
            await #expect {
                _ = try await download.fileURL
            } throws: { error in
                (error as? DownloadError)?.kind == .fileSystem
            }
            #expect(Self.isPipe(pipe))
        }
    }
}
