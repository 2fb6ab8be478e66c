@testable import Downstream
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Testing

/// The ranged engine's logic, driven through a scripted transport: the response decision, the
/// partial file's writes, checkpoints, digests, validators, the overlap check, redirects,
/// challenges and ends, with no socket. (The same logic over URLSession and a loopback server
/// is tested by `RangedEngineTests`, `RangedRequestsTests` and the rest of this folder.)
@Suite struct RangedTransferTests {
    let file = patternBytes(10)

    @Test func aWholeFileIsWrittenInTheOrderItCameAndItsValidatorRecorded() throws {
        let bench = try TransferBench()
        let (_, request) = bench.start(TransferBench.wholeFile())
        request.respond(200, ["Content-Length": "10", "ETag": "\"v1\""])
        request.send(Array(file[0..<3]))
        request.send(Array(file[3..<7]))
        request.send(Array(file[7...]))
        request.complete()

        #expect(bench.ends == [.finished])
        #expect(bench.partial == file)
        let record = try #require(bench.storedResume)
        #expect(record.validator == Validator(etag: "\"v1\""))
        #expect(record.expectedLength == 10)
        #expect(record.durableLength == 10)
        #expect(record.suggestedFileName == "file.bin")
        #expect(bench.progress.begins.map(\.bytes) == [0])
        #expect(bench.progress.begins.map(\.expected) == [10])
        #expect(bench.progress.added == 10)
        #expect(bench.endResponses.first??.statusCode == 200)
        #expect(request.cancelCount == 0)
    }

    @Test func aRangeAppendsAfterThePartialsBytesAndSaysItResumed() throws {
        let bench = try TransferBench(partial: Array(file[0..<4])) {
            $0.validator = Validator(etag: "\"v1\"")
            $0.expectedLength = 10
        }
        let plan = AttemptPlan(
            offset: 4, end: nil, validator: Validator(etag: "\"v1\""), expectedLength: 10, onServerFileChange: .restart)
        let (_, request) = bench.start(plan)
        request.respond(206, ["Content-Range": "bytes 4-9/10", "ETag": "\"v1\""])
        request.send(Array(file[4...]))
        request.complete()

        #expect(bench.ends == [.finished])
        #expect(bench.partial == file)
        #expect(bench.published == [.resumed(at: 4)])
        #expect(bench.progress.begins.map(\.bytes) == [4])
        #expect(bench.progress.added == 6)
    }

    @Test func aWholeFileAnsweringARangeReplacesThePartial() throws {
        let bench = try TransferBench(partial: [9, 9, 9, 9]) { $0.validator = Validator(etag: "\"old\"") }
        let plan = AttemptPlan(
            offset: 4, end: nil, validator: Validator(etag: "\"old\""), expectedLength: 10,
            onServerFileChange: .restart)
        let (_, request) = bench.start(plan)
        request.respond(200, ["Content-Length": "10", "ETag": "\"new\""])
        request.send(file)
        request.complete()

        #expect(bench.ends == [.finished])
        #expect(bench.partial == file)
        #expect(bench.published == [.restarted])
        #expect(bench.storedResume?.validator == Validator(etag: "\"new\""))
    }

    @Test func aRangeFromAnotherOffsetIsNeverWritten() throws {
        let kept = Array(file[0..<4])
        let bench = try TransferBench(partial: kept) { $0.validator = Validator(etag: "\"v1\"") }
        let plan = AttemptPlan(
            offset: 4, end: nil, validator: Validator(etag: "\"v1\""), expectedLength: 10, onServerFileChange: .restart)
        let (_, request) = bench.start(plan)
        request.respond(206, ["Content-Range": "bytes 2-9/10", "ETag": "\"v1\""])
        request.send(Array(file[2...]))
        #expect(request.cancelCount > 0)
        request.complete(TransportFailure(code: .cancelled, reason: "cancelled"))

        #expect(bench.ends == [.restart(reason: "206 starts at byte 2, the request asked for 4")])
        #expect(bench.partial == kept)
        #expect(bench.progress.added == 0)
    }

    @Test func anOverlapThatMatchesLetsTheRangeContinue() throws {
        let bench = try TransferBench(partial: Array(file[0..<4]))
        // No validator guards the range: the two bytes before the resume point are asked again.
        let plan = AttemptPlan(
            offset: 4, overlap: 2, end: nil, validator: Validator(), expectedLength: 10, onServerFileChange: .restart)
        let (_, request) = bench.start(plan)
        request.respond(206, ["Content-Range": "bytes 2-9/10"])
        request.send([file[2]])
        // Nothing is recorded or written while the overlap is being compared.
        #expect(bench.progress.begins.isEmpty)
        request.send(Array(file[3...]))
        request.complete()

        #expect(bench.ends == [.finished])
        #expect(bench.partial == file)
        #expect(bench.progress.begins.map(\.bytes) == [4])
        #expect(bench.progress.added == 6)
    }

    @Test(arguments: [DownloadRequest.ServerFileChangePolicy.restart, .fail])
    func anOverlapThatDiffersWritesNothing(_ policy: DownloadRequest.ServerFileChangePolicy) throws {
        let kept = Array(file[0..<4])
        let bench = try TransferBench(partial: kept) { $0.expectedLength = 10 }
        let plan = AttemptPlan(
            offset: 4, overlap: 2, end: nil, validator: Validator(), expectedLength: 10, onServerFileChange: policy)
        let (_, request) = bench.start(plan)
        request.respond(206, ["Content-Range": "bytes 2-9/10"])
        var other = Array(file[2...])
        other[1] &+= 1
        request.send(other)
        #expect(request.cancelCount > 0)
        request.complete(TransportFailure(code: .cancelled, reason: "cancelled"))

        let reason = "the 2 bytes before byte 4 are not those on disk"
        #expect(bench.ends == [policy == .fail ? .failed(.serverFileChanged(reason)) : .restart(reason: reason)])
        #expect(bench.partial == kept)
        #expect(bench.progress.added == 0)
        // Kept when the request said to fail rather than discard them, but never continued.
        #expect(bench.storedResume?.isResumable == (policy == .restart))
    }

    @Test func checkpointsSaveTheBytesOnDiskBeforeTheEnd() throws {
        let bench = try TransferBench()
        let settings = TransferBench.settings { $0.checkpoints.bytes = 4 }
        let (_, request) = bench.start(TransferBench.wholeFile(), settings: settings)
        request.respond(200, ["Content-Length": "10", "ETag": "\"v1\""])
        request.send(Array(file[0..<3]))
        #expect(bench.storedResume?.durableLength == 0)
        request.send(Array(file[3..<5]))
        #expect(bench.storedResume?.durableLength == 5)
        #expect(bench.partial == Array(file[0..<5]))
        request.send(Array(file[5...]))
        #expect(bench.storedResume?.durableLength == 10)
        request.complete()
        #expect(bench.ends == [.finished])
    }

    @Test func aBodyWaitsWhileTheDiskIsBehindAndTakesTheSameBytesWhenItCatchesUp() async throws {
        let bench = try TransferBench()
        let disk = GatedDisk()
        defer { disk.open() }
        let settings = TransferBench.settings { $0.disk = disk }
        let body = patternBytes(64 * 1024)
        let (_, request) = bench.start(TransferBench.wholeFile(), settings: settings)
        request.respond(200, ["Content-Length": "\(body.count)"])
        // The disk writes nothing: the buffers fill (4096 bytes each, in this bench), then the
        // transfer is asked to wait, with nothing of the refused chunk taken.
        var sent = 0
        while request.send(Array(body[sent..<sent + 1024])) == .taken {
            sent += 1024
            guard sent <= PartialFile.maximumBuffers * 4096 else { break }
        }
        #expect(sent == PartialFile.maximumBuffers * 4096)
        #expect(bench.progress.added == sent)

        disk.allow(1)
        await request.resumed()
        // The disk writes as fast as it can now, which may still be slower than this loop sends.
        disk.open()
        while sent < body.count {
            if request.send(Array(body[sent..<sent + 1024])) == .taken {
                sent += 1024
            } else {
                await request.resumed()
            }
        }
        request.complete()
        #expect(bench.ends == [.finished])
        #expect(bench.partial.map { $0 == body } == true, "the file is the body")
    }

    @Test func theDigestCoversExactlyTheBytesWritten() throws {
        let bench = try TransferBench { $0.digest = RunningDigest(.sha256) }
        let (_, request) = bench.start(TransferBench.wholeFile())
        request.respond(200, ["Content-Length": "10"])
        request.send(Array(file[0..<6]))
        request.send(Array(file[6...]))
        request.complete()

        var expected = RunningDigest(.sha256)
        file.withUnsafeBytes { expected.update($0) }
        let digest = try #require(bench.storedResume?.digest)
        #expect(digest.length == 10)
        #expect(digest == expected)
    }

    @Test func aBodyPastItsAnnouncedEndIsCutAndFails() throws {
        let bench = try TransferBench()
        let plan = AttemptPlan(
            offset: 0, end: 6, validator: Validator(), expectedLength: nil, onServerFileChange: .restart)
        let (_, request) = bench.start(plan)
        request.respond(206, ["Content-Range": "bytes 0-5/10"])
        request.send(Array(file[0..<8]))
        #expect(request.cancelCount > 0)
        request.send(Array(file[8...]))
        request.complete()

        #expect(
            bench.ends == [.failed(.unexpectedResponse("the body goes on past byte 5, where it was announced to end"))])
        #expect(bench.partial == Array(file[0..<6]))
        #expect(bench.storedResume?.durableLength == 6)
    }

    @Test func aBodyShorterThanAnnouncedFailsAndKeepsItsBytes() throws {
        let bench = try TransferBench()
        let (_, request) = bench.start(TransferBench.wholeFile())
        request.respond(200, ["Content-Length": "10"])
        request.send(Array(file[0..<7]))
        request.complete()

        #expect(bench.ends == [.failed(.unexpectedResponse("the body ended after 7 of 10 bytes"))])
        #expect(bench.partial == Array(file[0..<7]))
        #expect(bench.storedResume?.durableLength == 7)
        #expect(bench.storedResume?.isResumable == true)
    }

    @Test func aRangeOfAFileEndsIncompleteForTheNextRequest() throws {
        let bench = try TransferBench()
        let plan = AttemptPlan(
            offset: 0, end: 4, validator: Validator(), expectedLength: nil, onServerFileChange: .restart)
        let (_, request) = bench.start(plan)
        request.respond(206, ["Content-Range": "bytes 0-3/10", "ETag": "\"v1\""])
        request.send(Array(file[0..<4]))
        request.complete()

        #expect(bench.ends == [.incomplete(progressed: true)])
        #expect(bench.storedResume?.expectedLength == 10)
        #expect(bench.storedResume?.durableLength == 4)
    }

    @Test func aStopEndsAsCancelledWithTheBytesOnDisk() throws {
        let bench = try TransferBench()
        let (transfer, request) = bench.start(TransferBench.wholeFile())
        request.respond(200, ["Content-Length": "10", "ETag": "\"v1\""])
        request.send(Array(file[0..<5]))
        transfer.stop()
        #expect(request.cancelCount > 0)
        request.complete(TransportFailure(code: .cancelled, reason: "cancelled"))

        #expect(bench.ends == [.cancelled])
        #expect(bench.partial == Array(file[0..<5]))
        #expect(bench.storedResume?.durableLength == 5)
        #expect(bench.storedResume?.validator == Validator(etag: "\"v1\""))
    }

    /// The cancel came after the transport's last byte, and the transport dropped bytes that
    /// waited when it took effect: the request ends as stopped, not as a short body.
    @Test func aStopThatEndsWithAShortBodyEndsAsCancelled() throws {
        let bench = try TransferBench()
        let (transfer, request) = bench.start(TransferBench.wholeFile())
        request.respond(200, ["Content-Length": "10", "ETag": "\"v1\""])
        request.send(Array(file[0..<5]))
        transfer.stop()
        request.complete()

        #expect(bench.ends == [.cancelled])
        #expect(bench.partial == Array(file[0..<5]))
        #expect(bench.storedResume?.durableLength == 5)
    }

    @Test func aStopBeforeTheTransportsTaskExistsCancelsItAsItArrives() throws {
        let bench = try TransferBench()
        let setup = RangedTransfer.Setup(
            url: bench.url, plan: TransferBench.wholeFile(), announcesResume: true,
            partialPath: bench.partialPath, namesFile: false, record: ResumeRecord(url: bench.url),
            recordFile: bench.recordFile, settings: TransferBench.settings(), downloadID: DownloadID(),
            answersChallenges: false, previousChallenges: 0)
        let transfer = RangedTransfer(setup, progress: bench.progress, publish: { _ in }, onEnd: { _, _ in })
        transfer.stop()
        transfer.start(URLRequest(url: bench.url), on: bench.transport)
        #expect((bench.transport.started.first?.cancelCount ?? 0) > 0)
    }

    @Test func aNetworkFailureKeepsTheBytesAndSaysWhatHappened() throws {
        let bench = try TransferBench()
        let (_, request) = bench.start(TransferBench.wholeFile())
        request.respond(200, ["Content-Length": "10", "ETag": "\"v1\""])
        request.send(Array(file[0..<6]))
        request.complete(TransportFailure(code: .networkConnectionLost, reason: "reset by peer"))

        #expect(bench.ends == [.failed(.network(.networkConnectionLost, reason: "reset by peer"))])
        #expect(bench.partial == Array(file[0..<6]))
        #expect(bench.storedResume?.durableLength == 6)
    }

    @Test func aChallengeGoesToTheDownloadAndWritesNothing() throws {
        let bench = try TransferBench()
        let (_, request) = bench.start(TransferBench.wholeFile(), answersChallenges: true)
        request.respond(401, ["WWW-Authenticate": "Basic realm=\"files\""])
        #expect(request.cancelCount > 0)
        request.send(Array("denied".utf8))
        request.complete()

        guard case .challenged(let challenge) = bench.ends.first else {
            Issue.record("ended \(bench.ends), not with a challenge")
            return
        }
        #expect(challenge.realm == "files")
        #expect(bench.partial == nil)
    }

    @Test func aStatusThatIsNoFileFailsWithIt() throws {
        let bench = try TransferBench()
        let (_, request) = bench.start(TransferBench.wholeFile())
        request.respond(404)
        request.complete()
        #expect(bench.ends.first?.failureKind == .httpStatus)
        #expect(bench.partial == nil)
    }

    @Test func aRangeAnsweredWithTheWholeLengthIsAlreadyComplete() throws {
        let bench = try TransferBench(partial: file) { $0.expectedLength = 10 }
        let plan = AttemptPlan(
            offset: 10, end: nil, validator: Validator(), expectedLength: 10, onServerFileChange: .restart)
        let (_, request) = bench.start(plan)
        request.respond(416, ["Content-Range": "bytes */10"])
        request.complete()

        #expect(bench.ends == [.finished])
        #expect(bench.storedResume?.durableLength == 10)
        #expect(bench.partial == file)
    }

    @Test func redirectsAreCheckedByThePolicyBeforeTheyAreFollowed() async throws {
        let bench = try TransferBench()
        let (_, request) = bench.start(TransferBench.wholeFile())
        let mirror = URL(string: "http://mirror.test/file.bin")!
        let followed = await request.redirect(to: mirror)
        #expect(followed?.url == mirror)
        let refused = await request.redirect(to: URL(string: "ftp://mirror.test/file.bin")!)
        #expect(refused == nil)
        #expect(request.cancelCount > 0)
        request.complete(TransportFailure(code: .cancelled, reason: "cancelled"))
        #expect(bench.ends.first?.failureKind == .redirectRefused)
    }

    @Test func aRedirectHandlersRefusalFailsTheRequestWithItsReason() async throws {
        let bench = try TransferBench()
        let settings = TransferBench.settings { $0.redirects.handler = { _ in .refuse("not that host") } }
        let (_, request) = bench.start(TransferBench.wholeFile(), settings: settings)
        let answer = await request.redirect(to: URL(string: "http://elsewhere.test/file.bin")!)
        #expect(answer == nil)
        // The redirect itself is then the response.
        request.respond(302)
        request.complete()
        #expect(bench.ends == [.failed(.redirectRefused("not that host"))])
    }
}
