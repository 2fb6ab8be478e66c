@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A manager made with the identifier of an earlier one finds its downloads again, and repairs
/// what a process that ended at any instant leaves behind.
@Suite(.timeLimit(.minutes(2)))
struct RestorationTests {
    @Test func aRelaunchFindsEveryUnfinishedDownloadPausedWithItsProgress() async throws {
        try await withFixture(startsManager: false) { fixture in
            let first = Body.pattern(count: 900_000, seed: 100)
            let second = Body.pattern(count: 700_000, seed: 101)
            let firstURL = fixture.serve("/first.bin", first)
            let secondURL = fixture.serve("/second.bin", second)
            try fixture.leaveInterruptedDownload(
                of: firstURL, to: .file(fixture.file("first.bin"), ifExists: .replace), partial: first, length: 300_000
            ) {
                $0.request.headers = ["Authorization": "Bearer secret"]
                $0.request.metadata = ["episode": "12"]
                $0.request.priority = DownloadRequest.Priority.high.value
            }
            try fixture.leaveInterruptedDownload(
                of: secondURL, to: .directory(fixture.directory), partial: second, length: 100_000
            ) { $0.intent = .paused }

            let manager = try fixture.makeManager()
            let downloads = await manager.downloads
            #expect(downloads.count == 2)
            #expect(downloads.allSatisfy { $0.state == .paused })
            #expect(downloads.map(\.currentProgress.bytesReceived) == [300_000, 100_000])
            #expect(downloads.map(\.currentProgress.expectedBytes) == [900_000, 700_000])
            let restored = try #require(downloads.first)
            #expect(restored.request.metadata == ["episode": "12"])
            #expect(restored.request.priority == .high)
            #expect(restored.request.destination == .file(fixture.file("first.bin"), ifExists: .replace))
            var events = restored.events.makeAsyncIterator()
            #expect(await events.next() == .paused)

            await manager.resumeAll()
            try first.expectMatches(try await downloads[0].fileURL)
            try second.expectMatches(try await downloads[1].fileURL)
            let firstRequest = try #require(fixture.server.requests("/first.bin").first)
            #expect(firstRequest.rangeStart == fixture.rangeStart(continuing: 300_000))
            #expect(firstRequest.header("If-Range") == "\"\(StableHash.hex("/first.bin"))\"")
            #expect(firstRequest.header("Authorization") == "Bearer secret")
            #expect(fixture.server.requests("/second.bin").first?.rangeStart == fixture.rangeStart(continuing: 100_000))
            #expect(fixture.storedRecords().isEmpty)
        }
    }

    @Test func interruptedDownloadsResumeByThemselvesWhenConfigured() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 400_000, seed: 102)
            let interrupted = fixture.serve("/interrupted.bin", body)
            let paused = fixture.serve("/paused.bin", body)
            try fixture.leaveInterruptedDownload(
                of: interrupted, to: .directory(fixture.directory), partial: body, length: 50_000)
            try fixture.leaveInterruptedDownload(
                of: paused, to: .directory(fixture.directory), partial: body, length: 50_000
            ) { $0.intent = .paused }

            let manager = try fixture.makeManager { $0.restoration.resumesInterruptedDownloads = true }
            let downloads = await manager.downloads
            try body.expectMatches(try await downloads[0].fileURL)
            #expect(downloads[1].state == .paused)
            #expect(fixture.server.requests("/paused.bin").isEmpty)
        }
    }

    @Test func aPausedDownloadSurvivesItsManager() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 2_000_000, seed: 103)
            let url = fixture.serve("/pause.bin", body) { $0.faults = [.holdAfter(600_000)] }
            let destination = fixture.file("pause.bin")
            let first = try fixture.makeManager()
            let paused = await first.download(from: url, to: .file(destination))
            await paused.waitForBytes(600_000)
            await paused.pause()
            await first.invalidate()
            // The first manager gave its identifier and store up.
            let manager = try fixture.makeManager()
            let download = try #require(await manager.downloads.first)
            #expect(download.state == .paused)
            #expect(download.currentProgress.bytesReceived == 600_000)
            // Asking for the same download again joins and resumes the restored one.
            let joined = await manager.download(from: url, to: .file(destination))
            #expect(joined === download)
            try body.expectMatches(try await download.fileURL)
            #expect(
                fixture.server.requests("/pause.bin").map(\.rangeStart) == [0, fixture.rangeStart(continuing: 600_000)])
        }
    }

    /// A download queued and never started comes back with its URL (kept as text until it is
    /// needed), asks the server for it, and reports the URL it uses.
    @Test func aQueuedDownloadComesBackWithItsURLAndDownloadsFromIt() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 300_000, seed: 104)
            let served = fixture.serve("/queued.bin", body)
            let url = try #require(URL(string: served.absoluteString + "?token=a%2Fb&n=1"))
            let first = try fixture.makeManager()
            _ = await first.download(DownloadRequest(url: url, to: .directory(fixture.directory)), startsPaused: true)
            await first.invalidate()

            let manager = try fixture.makeManager()
            let restored = try #require(await manager.downloads.first)
            #expect(restored.url == url)
            #expect(restored.request.url == url)
            #expect(restored.request.urlRequest.url == url)
            await restored.resume()
            try body.expectMatches(try await restored.fileURL)
            #expect(restored.url == url)
            #expect(fixture.server.requests("/queued.bin").map(\.target) == ["/queued.bin?token=a%2Fb&n=1"])
        }
    }

    @Test func invalidatingStopsLikeTheEndOfTheProcess() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 1_500_000, seed: 114)
            let url = fixture.serve("/invalidate.bin", body) { $0.faults = [.holdAfter(400_000)] }
            let first = try fixture.makeManager()
            let running = await first.download(from: url, to: .directory(fixture.directory))
            await running.waitForBytes(400_000)
            await first.invalidate()
            // The record still says the download was running: it counts as interrupted.
            #expect(fixture.storedRecord(running.id)?.intent == .active)
            let refused = await first.download(from: url, to: .directory(fixture.file("elsewhere")))
            let error = try await #require(throws: DownloadError.self) { try await refused.fileURL }
            #expect(error.kind == .managerUnavailable)

            let manager = try fixture.makeManager { $0.restoration.resumesInterruptedDownloads = true }
            let restored = try #require(await manager.downloads.first)
            #expect(restored.id == running.id)
            try body.expectMatches(try await restored.fileURL)
            #expect(
                fixture.server.requests("/invalidate.bin").map(\.rangeStart) == [
                    0, fixture.rangeStart(continuing: 400_000),
                ])
        }
    }

    @Test func thePartialsRealLengthWinsOverAStaleRecord() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 800_000, seed: 104)
            let url = fixture.serve("/stale.bin", body)
            try fixture.leaveInterruptedDownload(
                of: url, to: .directory(fixture.directory), partial: body, length: 450_000
            ) { $0.resume.durableLength = 100_000 }

            let manager = try fixture.makeManager()
            let download = try #require(await manager.downloads.first)
            #expect(download.currentProgress.bytesReceived == 450_000)
            await download.resume()
            try body.expectMatches(try await download.fileURL)
            #expect(
                fixture.server.requests("/stale.bin").map(\.rangeStart) == [fixture.rangeStart(continuing: 450_000)])
        }
    }

    @Test func damagedTruncatedAndNewerRecordsAreSetAsideAndTheOthersRestored() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 300_000, seed: 105)
            let url = fixture.serve("/good.bin", body)
            let good = try fixture.leaveInterruptedDownload(
                of: url, to: .directory(fixture.directory), partial: body, length: 1000)
            let valid = try Data(contentsOf: fixture.recordFile(good.id))
            func record(_ contents: Data) throws -> URL {
                let file = fixture.recordFile(Download.ID())
                try contents.writeWithoutSync(to: file)
                return file
            }
            // Cut inside the first copy's payload.
            let truncated = try record(valid.prefix(RecordSlots.headerSize + 40))
            let garbage = try record(Data("not a record at all \u{0}\u{1}".utf8))
            let newerRecord = try record(
                Data(
                    RecordSlots.file(
                        Data(#"{"version": 99, "somethingNew": true}"#.utf8), at: .init(sequence: 0, slotSize: 2048))))
            var newerFormat = valid
            newerFormat[3] = RecordSlots.formatVersion + 1
            let newerLayout = try record(newerFormat)
            // A file made by a process that ended before writing the first copy.
            let empty = try record(Data())

            let manager = try fixture.makeManager()
            #expect(await manager.downloads.map(\.id) == [good.id])
            let issues = manager.restorationIssues
            #expect(issues.count == 4)
            #expect(
                Set(issues.map(\.recordURL.lastPathComponent)) == [
                    truncated.lastPathComponent + ".corrupt", garbage.lastPathComponent + ".corrupt",
                    newerRecord.lastPathComponent + ".unsupported", newerLayout.lastPathComponent + ".unsupported",
                ])
            #expect(issues.filter { $0.reason.contains("newer version") }.count == 2)
            #expect(!FileManager.default.fileExists(atPath: truncated.path))
            #expect(!FileManager.default.fileExists(atPath: empty.path), "removed, and not an issue")

            let download = try #require(await manager.downloads.first)
            await download.resume()
            try body.expectMatches(try await download.fileURL)
        }
    }

    @Test func aWriteTornByAPowerCutFallsBackToTheCopyBefore() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 300_000, seed: 107)
            let url = fixture.serve("/torn.bin", body)
            let first = try fixture.leaveInterruptedDownload(
                of: url, to: .directory(fixture.directory), partial: body, length: 1000
            ) { $0.request.metadata = ["copy": "first"] }
            // A second copy, in the other slot, then torn halfway (as by a power cut).
            let store = try DownloadStore(
                identifier: fixture.configuration.identifier, directory: fixture.storeDirectory)
            var second = first
            second.request.metadata = ["copy": "second"]
            guard case .record(let loaded) = DownloadStore.read(fixture.recordFile(first.id), placement: .unchecked)
            else {
                Issue.record("the record cannot be read")
                return
            }
            guard case .file(let position) = try store.update(second, at: loaded.place) else {
                Issue.record("a record with bytes to protect left its file")
                return
            }
            #expect(fixture.storedRecord(first.id)?.request.metadata == ["copy": "second"])
            store.release()
            let file = try FileHandle(forWritingTo: fixture.recordFile(first.id))
            try file.seek(toOffset: UInt64(position.offset + RecordSlots.headerSize + 10))
            try file.write(contentsOf: Data(repeating: 0xFF, count: 100))
            try file.close()

            let manager = try fixture.makeManager()
            #expect(manager.restorationIssues.isEmpty)
            let download = try #require(await manager.downloads.first)
            #expect(download.request.metadata == ["copy": "first"])
            await download.resume()
            try body.expectMatches(try await download.fileURL)
            #expect(fixture.server.requests("/torn.bin").map(\.rangeStart) == [fixture.rangeStart(continuing: 1000)])
        }
    }

    @Test func setAsideRecordsAreReportedOnce() async throws {
        try await withFixture(startsManager: false) { fixture in
            try FileManager.default.createDirectory(at: fixture.storeDirectory, withIntermediateDirectories: true)
            try Data("{".utf8).writeWithoutSync(to: fixture.recordFile(Download.ID()))
            let first = try fixture.makeManager()
            #expect(first.restorationIssues.count == 1)
            await first.invalidate()
            let manager = try fixture.makeManager()
            #expect(manager.restorationIssues.isEmpty)
        }
    }

    @Test func temporaryFilesOfInterruptedWritesAreRemoved() async throws {
        try await withFixture(startsManager: false) { fixture in
            try FileManager.default.createDirectory(at: fixture.storeDirectory, withIntermediateDirectories: true)
            let leftover = fixture.storeDirectory.appendingPathComponent(
                ".\(UUID().uuidString).\(DownloadStore.recordExtension).12345.downstream-tmp")
            try Data("{\"version\":".utf8).writeWithoutSync(to: leftover)
            let manager = try fixture.makeManager()
            #expect(!FileManager.default.fileExists(atPath: leftover.path))
            #expect(manager.restorationIssues.isEmpty)
            #expect(await manager.downloads.isEmpty)
        }
    }

    @Test func aRecordWhosePartialIsGoneStartsAgainFromTheFirstByte() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 600_000, seed: 106)
            let url = fixture.serve("/gone.bin", body)
            let record = try fixture.leaveInterruptedDownload(
                of: url, to: .directory(fixture.directory), partial: body, length: 200_000)
            try FileManager.default.removeItem(atPath: record.partialPath)

            let manager = try fixture.makeManager()
            let download = try #require(await manager.downloads.first)
            #expect(download.currentProgress.bytesReceived == 0)
            await download.resume()
            try body.expectMatches(try await download.fileURL)
            #expect(fixture.server.requests("/gone.bin").map { $0.header("If-Range") } == [nil])
        }
    }

    @Test func aRecordOfADeliveredFileIsRemoved() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 10_000, seed: 107)
            let url = fixture.serve("/delivered.bin", body)
            // The process ended after the rename into place and before the record was removed.
            let record = try fixture.leaveInterruptedDownload(
                of: url, to: .directory(fixture.directory), partial: body, length: body.count)
            try FileManager.default.moveItem(atPath: record.partialPath, toPath: fixture.file("delivered.bin").path)

            let manager = try fixture.makeManager()
            #expect(await manager.downloads.isEmpty)
            #expect(fixture.storedRecords().isEmpty)
            try body.expectMatches(fixture.file("delivered.bin"))
        }
    }

    @Test func anInterruptedCancellationIsFinished() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 10_000, seed: 108)
            let url = fixture.serve("/cancelled.bin", body)
            try fixture.leaveInterruptedDownload(
                of: url, to: .directory(fixture.directory), partial: body, length: 5000
            ) { $0.intent = .cancelled }

            let manager = try fixture.makeManager()
            #expect(await manager.downloads.isEmpty)
            #expect(fixture.storedRecords().isEmpty)
            #expect(fixture.listing().isEmpty)
        }
    }

    @Test func keptDataIsContinuedByTheNextDownloadAfterARelaunch() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 500_000, seed: 109)
            // The request holds, so that the download's progress is read before it moves on.
            let url = fixture.serve("/kept.bin", body) { $0.faults = [.holdAfter(0)] }
            let kept = try fixture.leaveInterruptedDownload(
                of: url, to: .directory(fixture.directory), partial: body, length: 123_456
            ) { $0.intent = .kept }

            let manager = try fixture.makeManager()
            #expect(await manager.downloads.isEmpty)
            let download = await manager.download(from: url, to: .directory(fixture.directory))
            #expect(download.currentProgress.bytesReceived == 123_456)
            fixture.server.release("/kept.bin")
            try body.expectMatches(try await download.fileURL)
            #expect(fixture.server.requests("/kept.bin").map(\.rangeStart) == [fixture.rangeStart(continuing: 123_456)])
            #expect(fixture.storedRecord(kept.id) == nil)
            #expect(fixture.storedRecords().isEmpty)
        }
    }

    @Test func keptRecordsWithoutDataAreRemoved() async throws {
        try await withFixture(startsManager: false) { fixture in
            let url = fixture.serve("/nothing.bin", .pattern(count: 10))
            let kept = try fixture.leaveInterruptedDownload(of: url, to: .directory(fixture.directory), partial: nil) {
                $0.intent = .kept
            }
            _ = try fixture.makeManager()
            #expect(fixture.storedRecord(kept.id) == nil)
        }
    }

    @Test func aPartialFileWithoutARecordIsNotContinued() async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 300_000, seed: 110)
            // The request holds, so that the download's progress is read before it moves on.
            let url = fixture.serve("/orphan.bin", body) { $0.faults = [.holdAfter(0)] }
            let destination = fixture.file("orphan.bin")
            // Bytes of unknown origin where the partial file would go.
            try Data(repeating: 0xAA, count: 200_000).writeWithoutSync(
                to: destination.appendingPathExtension("partial"))

            let download = await fixture.manager.download(from: url, to: .file(destination))
            #expect(download.currentProgress.bytesReceived == 0)
            fixture.server.release("/orphan.bin")
            try body.expectMatches(try await download.fileURL)
            #expect(fixture.server.requests("/orphan.bin").map(\.rangeStart) == [0])
        }
    }

    @Test func unknownPartialsInTheManagersPartialsDirectoryAreDeleted() async throws {
        let partials = FileManager.default.temporaryDirectory.appendingPathComponent("partials-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: partials) }
        try await withFixture(startsManager: false, { $0.storage.partialsDirectory = partials }) { fixture in
            let body = Body.pattern(count: 100_000, seed: 112)
            let url = fixture.serve("/known.bin", body)
            let known = try fixture.leaveInterruptedDownload(
                of: url, to: .directory(fixture.directory), partial: body, length: 1000)
            let orphan = partials.appendingPathComponent("lost.bin.0123456789abcdef.partial")
            try Data(count: 10).writeWithoutSync(to: orphan)
            let unrelated = partials.appendingPathComponent("notes.txt")
            try Data(count: 10).writeWithoutSync(to: unrelated)

            let manager = try fixture.makeManager()
            #expect(await manager.downloads.count == 1)
            #expect(FileManager.default.fileExists(atPath: known.partialPath))
            #expect(!FileManager.default.fileExists(atPath: orphan.path))
            #expect(FileManager.default.fileExists(atPath: unrelated.path))
        }
    }

    @Test func downloadsSynchronizedToTheDiskWorkAndSurviveARelaunch() async throws {
        try await withFixture(startsManager: false, { $0.storage.synchronizesToDisk = true }) { fixture in
            let body = Body.pattern(count: 3_000_000, seed: 113)
            let url = fixture.serve("/synced.bin", body) { $0.faults = [.holdAfter(1_000_000)] }
            let first = try fixture.makeManager { $0.storage.checkpoints.bytes = 256 << 10 }
            let paused = await first.download(from: url, to: .directory(fixture.directory))
            await paused.waitForBytes(1_000_000)
            await paused.pause()
            await first.invalidate()
            let manager = try fixture.makeManager()
            let download = try #require(await manager.downloads.first)
            #expect(download.currentProgress.bytesReceived == 1_000_000)
            await download.resume()
            try body.expectMatches(try await download.fileURL)
        }
    }

    @Test func twoManagersCannotShareAnIdentifier() async throws {
        try await withFixture(startsManager: false) { fixture in
            let first = try fixture.makeManager()
            let error = try #require(throws: DownloadError.self) { try fixture.makeManager() }
            #expect(error.kind == .managerUnavailable)
            #expect(error.description.contains(fixture.configuration.identifier))
            await first.invalidate()
            _ = try fixture.makeManager()
        }
    }

    /// A store another process's manager has fails at once, naming the store and the process;
    /// once that process is gone, the store is free.
    @Test func aStoreLockedByAnotherProcessIsAClearError() async throws {
        try await withFixture(startsManager: false) { fixture in
            let input = try SpawnedProcess.pipe()
            let output = try SpawnedProcess.pipe()
            let holder = try SpawnedProcess(
                try ChildProcess.executable("DownstreamTestClient"), ["hold", "--store", fixture.storeDirectory.path],
                input: input.read, output: output.write)
            close(input.read)
            close(output.write)
            let reader = OutputReader(output.read)
            reader.start()
            let holding = await reader.wait { $0.contains("holding pid=") && $0.contains("\n") }
            try #require(holding != nil, "the holding process did not start")

            let error = try #require(throws: DownloadError.self) {
                try fixture.makeManager { $0.identifier = "another-\(UUID().uuidString)" }
            }
            #expect(error.kind == .managerUnavailable)
            #expect(error.description.contains(fixture.storeDirectory.path))
            #expect(error.description.contains("process \(holder.pid)"), "\(error)")

            close(input.write)
            #expect(await holder.ending().status == 0)
            _ = try fixture.makeManager { $0.identifier = "another-\(UUID().uuidString)" }
        }
    }

    @Test func progressIsSavedAtCheckpointsNotForEveryChunk() async throws {
        // Checkpoints by bytes only: one by time (on a slow run) would move the next one past the hold.
        try await withFixture({
            $0.storage.checkpoints.bytes = 1 << 20
            $0.storage.checkpoints.interval = .seconds(3600)
        }) { fixture in
            let body = Body.pattern(count: 6_000_000, seed: 111)
            let url = fixture.serve("/checkpoints.bin", body) { $0.faults = [.holdAfter(4_500_000)] }
            let download = await fixture.manager.download(from: url, to: .directory(fixture.directory))
            await download.waitForBytes(4_500_000)
            let durable = try #require(fixture.storedRecord(download.id)?.resume.durableLength)
            // The last checkpoint was at 4 MiB; the bytes after it are not in the record yet.
            #expect(durable >= 4 << 20)
            #expect(durable < 4_500_000)
            await download.pause()
            #expect(fixture.storedRecord(download.id)?.resume.durableLength == 4_500_000)
        }
    }

    @Test func theStoreLivesInTheDataDirectoryByDefault() throws {
        let home = "/home/someone"
        typealias Configuration = DownloadManager.Configuration
        #expect(
            try Configuration.linuxDataDirectory(environment: [:], home: home).path == "/home/someone/.local/share")
        #expect(
            try Configuration.linuxDataDirectory(environment: ["XDG_DATA_HOME": "/data/xdg"], home: home).path
                == "/data/xdg")
        #expect(
            try Configuration.linuxDataDirectory(environment: ["XDG_DATA_HOME": "relative"], home: home).path
                == "/home/someone/.local/share")
        // Without a home directory, only an absolute XDG_DATA_HOME gives the store a place; else
        // an error that says what to set.
        #expect(
            try Configuration.linuxDataDirectory(environment: ["XDG_DATA_HOME": "/data/xdg"], home: nil).path
                == "/data/xdg")
        let error = #expect(throws: DownloadError.self) {
            try Configuration.linuxDataDirectory(environment: ["XDG_DATA_HOME": "relative"], home: nil)
        }
        #expect(error?.kind == .managerUnavailable)
        #expect(error?.reason.contains("set HOME") == true)
        // On every platform, whatever the base: Downstream/<the identifier made one safe name>.
        let store = try Configuration(identifier: "com.example/../app").storeDirectory
        #expect(store.lastPathComponent == "com.example_.._app")
        #expect(store.deletingLastPathComponent().lastPathComponent == "Downstream")
    }
}
