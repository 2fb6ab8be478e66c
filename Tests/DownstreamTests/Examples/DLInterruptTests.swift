@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

@testable import dl

/// Ctrl-C and reruns: `dl` pauses what it started and continues it when run again, and pays no
/// attention to the downloads of earlier runs that it did not start.
@Suite(.timeLimit(.minutes(2)))
struct DLInterruptTests {
    @Test func ctrlCPausesAndTheSameCommandContinuesFromTheBytesKept() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 3_000_000, seed: 90)
            let url = fixture.serve("/dl/movie.mp4", body) { $0.faults = [.holdAfter(1_000_000)] }
            let arguments = ["--progress-interval", "0", url.absoluteString]
            let store = DLChild.store(fixture)

            // First run: Ctrl-C once it shows the bytes the server sent before holding.
            let first = try DLChild(arguments, in: fixture)
            defer { first.stop() }
            #expect(await first.output.wait(for: "movie.mp4  33%  1.00 MB/3.00 MB"))
            first.interrupt()
            #expect(await first.exitStatus() == 130)
            let output = await first.output.text()
            // A paused line tells how far it got, not a speed of 0.
            #expect(output.contains("paused movie.mp4 at 33%  1.00 MB/3.00 MB\n"), "\(output)")
            #expect(output.hasSuffix("interrupted: run the same command again to continue\n"))
            #expect(fixture.listing() == ["movie.mp4.partial"])
            // Paused with its record saved, for the next run.
            #expect(DownloadStore.records(in: store).count == 1)
            let kept = try #require(fileLength(fixture.file("movie.mp4.partial")))
            #expect(kept > 0)
            fixture.server.release("/dl/movie.mp4")

            // Second run: continues from the bytes kept.
            let (status, rerun, errors) = try await DLChild.run(arguments, in: fixture)
            #expect(status == 0, "\(rerun)\(errors)")
            #expect(rerun.contains("resumed movie.mp4 from \(Format.bytes(kept)) kept (byte \(kept))\n"), "\(rerun)")
            // The size of the file, and what this run received in its time.
            #expect(
                rerun.contains(
                    "saved \(fixture.file("movie.mp4").path) (3.00 MB; this run \(Format.bytes(3_000_000 - kept)) in "),
                "\(rerun)")
            try body.expectMatches(fixture.file("movie.mp4"))
            #expect(fixture.listing() == ["movie.mp4"])
            #expect(DLChild.storedDownloads(fixture).isEmpty)
            // The rerun asks for the bytes missing, after a first request for the file.
            #expect(
                fixture.server.requests("/dl/movie.mp4").map { $0.rangeStart ?? 0 } == [
                    0, fixture.rangeStart(continuing: kept),
                ])
        }
    }

    /// The promise of Ctrl-C: the same command continues and exits 0, for a mix of a file saved
    /// before the interruption (counted as saved, not failed as one that exists, and not asked
    /// for again), one partial and one not started; a file dl did not save is still the user's.
    @Test func theSameCommandAfterCtrlCExitsZeroForSavedPartialAndNotStartedFiles() async throws {
        try await withFixture(startsManager: false) { fixture in
            let saved = Body.pattern(count: 50_000, seed: 2310)
            let partial = Body.pattern(count: 3_000_000, seed: 2311)
            let later = Body.pattern(count: 60_000, seed: 2312)
            let urls = [
                fixture.serve("/m/saved.bin", saved),
                fixture.serve("/m/partial.bin", partial) { $0.faults = [.holdAfter(1_000_000)] },
                fixture.serve("/m/later.bin", later),
            ]
            let arguments = ["-j", "1", "--progress-interval", "0"] + urls.map(\.absoluteString)
            let first = try DLChild(arguments, in: fixture)
            defer { first.stop() }
            #expect(await first.output.wait(for: "partial.bin  33%  1.00 MB/3.00 MB"))
            first.interrupt()
            #expect(await first.exitStatus() == 130)
            #expect(await first.output.text().contains("saved \(fixture.file("saved.bin").path) ("))
            fixture.server.release("/m/partial.bin")
            let asked = fixture.server.requests("/m/saved.bin").count

            let (status, rerun, errors) = try await DLChild.run(arguments, in: fixture)
            #expect(status == 0, "\(rerun)\(errors)")
            #expect(rerun.contains("kept \(fixture.file("saved.bin").path) (saved by an earlier run)\n"), "\(rerun)")
            #expect(rerun.contains("saved \(fixture.file("partial.bin").path) ("))
            #expect(rerun.contains("saved \(fixture.file("later.bin").path) ("))
            #expect(rerun.hasSuffix("3 saved\n"), "\(rerun)")
            #expect(fixture.server.requests("/m/saved.bin").count == asked, "not asked for again")
            try saved.expectMatches(fixture.file("saved.bin"))
            try partial.expectMatches(fixture.file("partial.bin"))
            try later.expectMatches(fixture.file("later.bin"))

            // A file changed since dl saved it is the user's: the usual rule (it exists) applies.
            try Data("changed by the user".utf8).writeWithoutSync(to: fixture.file("saved.bin"))
            let (changed, output, changedErrors) = try await DLChild.run([urls[0].absoluteString], in: fixture)
            #expect(changed == 3, "\(output)\(changedErrors)")
            #expect(changedErrors.contains("exists"), "\(changedErrors)")
        }
    }

    /// A signed link that expired, a server that moved: the same file from a new URL continues
    /// from the bytes kept, after checking the bytes before the resume point.
    @Test func aRerunWithANewURLForTheSameFileContinuesFromTheBytesKept() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 3_000_000, seed: 91)
            let old = fixture.serve("/v1/movie.mp4", body) { $0.faults = [.holdAfter(1_000_000)] }
            let new = fixture.serve("/v2/movie.mp4", body)
            let kept = try await Self.interruptAtAThird(old, named: "movie.mp4", in: fixture)
            fixture.server.release("/v1/movie.mp4")

            let (status, output, errors) = try await DLChild.run([new.absoluteString], in: fixture)
            #expect(status == 0, "\(output)\(errors)")
            #expect(output.contains("movie.mp4: switched to \(new.absoluteString)\n"), "\(output)")
            #expect(output.contains("resumed movie.mp4 from"), "\(output)")
            try body.expectMatches(fixture.file("movie.mp4"))
            // One request to the new URL, from the overlap before the bytes kept.
            let requests = fixture.server.requests("/v2/movie.mp4")
            #expect(requests.count == 1)
            #expect(requests.first?.rangeStart == kept - 65_536)
            #expect(DLChild.storedDownloads(fixture).isEmpty)
        }
    }

    /// Runs dl for `url` (a 3 MB file held after its first MB) until it shows a third of `name`,
    /// then interrupts it; returns the bytes it kept.
    static func interruptAtAThird(_ url: URL, named name: String, in fixture: Fixture) async throws -> Int64 {
        let child = try DLChild(["--progress-interval", "0", url.absoluteString], in: fixture)
        defer { child.stop() }
        #expect(await child.output.wait(for: "\(name)  33%  1.00 MB/3.00 MB"))
        child.interrupt()
        #expect(await child.exitStatus() == 130)
        return try #require(fileLength(fixture.file("\(name).partial")))
    }

    /// An expired link (410) after bytes were kept: the failure says that a new URL for the same
    /// file continues from them, in the message and in the JSON.
    @Test func anExpiredLinkSaysANewURLContinuesFromTheBytesKept() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 3_000_000, seed: 92)
            let url = fixture.serve("/v1/film.mp4", body) { $0.faults = [.holdAfter(1_000_000), .status(410)] }
            let kept = try await Self.interruptAtAThird(url, named: "film.mp4", in: fixture)
            fixture.server.release("/v1/film.mp4")

            let (status, output, errors) = try await DLChild.run(["--json", url.absoluteString], in: fixture)
            #expect(status == 8, "\(output)\(errors)")
            let failed = try #require(output.split(separator: "\n").first { $0.contains("\"event\":\"failed\"") })
            #expect(failed.contains("\"status\":410"), "\(failed)")
            #expect(failed.contains("\"bytesKept\":\(kept)"), "\(failed)")
            #expect(failed.contains("\"continuesWithNewURL\":true"), "\(failed)")
            #expect(failed.contains("kept: a new URL for the same file continues from them"), "\(failed)")
            #expect(fileLength(fixture.file("film.mp4.partial")) == kept)
        }
    }

    /// Two dl processes at once share the store, as two wgets share a folder: each downloads its
    /// own files; a file the other is downloading fails at once, naming that dl, and leaves its
    /// bytes alone.
    @Test func twoDLsRunSideBySideButNeverOnOneFile() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 200_000, seed: 13)
            let url = fixture.serve("/busy.bin", body) { $0.faults = [.holdAfter(100_000)] }
            let otherBody = Body.pattern(count: 50_000, seed: 14)
            let other = fixture.serve("/other.bin", otherBody)
            let first = try DLChild([url.absoluteString], in: fixture)
            defer { first.stop() }
            #expect(await fixture.server.waitForRequests(1, path: "/busy.bin"))

            let second = try await DLChild.run([other.absoluteString], in: fixture)
            #expect(second.status == 0, "\(second.output)\(second.errors)")
            try otherBody.expectMatches(fixture.file("other.bin"))

            let same = try await DLChild.run([url.absoluteString], in: fixture)
            #expect(same.status == 1, "\(same.output)\(same.errors)")
            #expect(same.errors.contains("failed busy.bin: "), "\(same.errors)")
            #expect(same.errors.contains("process \(first.child.pid)"), "\(same.errors)")
            #expect(fixture.server.requests("/busy.bin").count == 1)

            fixture.server.release("/busy.bin")
            let status = await first.exitStatus()
            let firstOutput = await first.output.text()
            let firstErrors = await first.errors?.text() ?? ""
            #expect(status == 0, "\(firstOutput)\(firstErrors)")
            try body.expectMatches(fixture.file("busy.bin"))
        }
    }

    /// The bug of the first `dl`: it followed `manager.downloads.first`, which after a relaunch
    /// is a download of an earlier run: with a failed one in the store, `dl` saved the file and
    /// then waited forever for that other download to end.
    @Test func downloadsOfEarlierRunsInTheStoreDoNotHoldARunUp() async throws {
        try await withFixture(startsManager: false) { fixture in
            let store = DLChild.store(fixture)
            let gone = fixture.server.url("/gone.bin")
            let other = fixture.serve("/other.bin", Body.pattern(count: 100_000, seed: 11))
            let body = Body.pattern(count: 400_000, seed: 12)
            let wanted = fixture.serve("/wanted.bin", body)
            // An earlier run left a download that failed (404) and one that was paused.
            do {
                let manager = try fixture.makeManager { $0.storage.directory = store }
                let failed = await manager.download(from: gone, to: .file(fixture.file("gone.bin")))
                _ = try? await failed.fileURL
                #expect(failed.state == .failed)
                let paused = DownloadRequest(url: other, to: .file(fixture.file("other.bin")))
                await manager.download(paused, startsPaused: true)
                await manager.invalidate()
            }
            #expect(DownloadStore.records(in: store).count == 2)

            let (status, output, errors) = try await DLChild.run([wanted.absoluteString], in: fixture)
            #expect(status == 0, "\(output)\(errors)")
            let lines = output.split(separator: "\n")
            #expect(lines.count == 2, "\(output)")
            #expect(lines.first == "started wanted.bin from \(wanted.absoluteString)")
            #expect(lines.last?.hasPrefix("saved \(fixture.file("wanted.bin").path) (") == true, "\(output)")
            try body.expectMatches(fixture.file("wanted.bin"))
            // dl leaves the downloads it did not start as they were.
            #expect(DownloadStore.records(in: store).count == 2)
            #expect(fixture.server.requests("/other.bin").isEmpty)
        }
    }
}
