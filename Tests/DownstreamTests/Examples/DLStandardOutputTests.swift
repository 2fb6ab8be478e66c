@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

@testable import dl

#if canImport(Glibc)
    import Glibc
#endif

/// `-O -` (and curl's `-o -`): the file goes to standard output as it comes, in order, and the
/// reports to standard error. It is downloaded into dl's store too: a retry continues it there,
/// and the same command writes it again from the store and continues after Ctrl-C.
@Suite(.timeLimit(.minutes(1)))
struct DLStandardOutputTests {
    static let text = Data((1...20_000).map { "line \($0)\n" }.joined().utf8)
    /// Another version of ``text``, of the same length.
    static let otherText = Data((1...20_000).map { "LINE \($0)\n" }.joined().utf8)

    @Test(arguments: [["-O", "-"], ["-o", "-"]])
    func theFileGoesToStandardOutputAndTheReportsToStandardError(_ flags: [String]) async throws {
        try await withFixture(startsManager: false) { fixture in
            let url = fixture.serve("/out/notes.txt", .data(Self.text))
            let (status, output, errors) = try await DLChild.run(flags + [url.absoluteString], in: fixture)
            #expect(status == 0, "\(errors)")
            #expect(Data(output.utf8) == Self.text)
            #expect(errors.contains("saved /dev/stdout ("), "\(errors)")
            // Nothing is left behind: not in the current folder, not in the store.
            #expect(fixture.listing().isEmpty)
            #expect(fixture.listing(DLChild.store(fixture).appendingPathComponent("stdout")).isEmpty)
        }
    }

    @Test func ctrlCThenTheSameCommandContinuesAndWritesTheWholeFile() async throws {
        try await withFixture(startsManager: false) { fixture in
            let count = Self.text.count
            let url = fixture.serve("/out/long.txt", .data(Self.text)) { $0.faults = [.holdAfter(Int64(count / 3))] }
            let first = try DLChild(["--progress-interval", "0", "-O", "-", url.absoluteString], in: fixture)
            defer { first.stop() }
            #expect(await first.errors?.wait(for: "long.txt  33%") == true)
            first.interrupt()
            #expect(await first.exitStatus() == 130)
            // What came went out (the bytes are written as they come); the rerun writes it all.
            let written = Data(await first.output.text().utf8)
            #expect(written == Self.text.prefix(count / 3), "\(written.count) bytes")
            fixture.server.release("/out/long.txt")

            let (status, output, errors) = try await DLChild.run(["-O", "-", url.absoluteString], in: fixture)
            #expect(status == 0, "\(errors)")
            #expect(Data(output.utf8) == Self.text)
            #expect(errors.contains("resumed long.txt from"), "\(errors)")
            let starts = fixture.server.requests("/out/long.txt").map { $0.rangeStart ?? 0 }
            #expect(starts.count == 2 && starts[1] > 0, "\(starts)")
        }
    }

    @Test func severalURLsCannotShareStandardOutput() async throws {
        try await withFixture(startsManager: false) { fixture in
            let (status, _, errors) = try await DLChild.run(
                ["-O", "-", fixture.server.url("/a").absoluteString, fixture.server.url("/b").absoluteString],
                in: fixture)
            #expect(status == 2)
            #expect(errors.contains("-O (--output-document) takes one URL"), "\(errors)")
        }
    }

    @Test func theFirstBytesComeOutWhileTheServerHoldsTheRest() async throws {
        try await withFixture(startsManager: false) { fixture in
            let url = fixture.serve("/out/held.txt", .data(Self.text)) { $0.faults = [.holdAfter(40_000)] }
            let child = try DLChild(["-O", "-", url.absoluteString], in: fixture)
            defer { child.stop() }
            // Every byte the server sent is out before it sends the rest.
            let early = await child.output.wait { $0.utf8.count >= 40_000 }
            #expect(early.map { Data($0.utf8) == Self.text.prefix(40_000) } == true)
            fixture.server.release("/out/held.txt")
            #expect(await child.exitStatus() == 0)
            #expect(Data(await child.output.text().utf8) == Self.text)
        }
    }

    /// `-O` a named pipe (or `/dev/null`) writes into it as standard output is written, and
    /// leaves it a pipe: a rename would have put a file in its place.
    @Test func aNamedPipeIsWrittenAsItComesAndStaysAPipe() async throws {
        try await withFixture(startsManager: false) { fixture in
            let url = fixture.serve("/out/piped.txt", .data(Self.text))
            let pipe = fixture.directory.appendingPathComponent("pipe")
            #expect(mkfifo(pipe.path, 0o600) == 0)
            // Opened without waiting for a writer, then read as a pipe is; the test's own writer
            // keeps the reader from its end (no writer yet) until dl has been and gone.
            let descriptor = open(pipe.path, O_RDONLY | O_NONBLOCK)
            try #require(descriptor >= 0)
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
            let writer = open(pipe.path, O_WRONLY)
            try #require(writer >= 0)
            let reader = OutputReader(descriptor)
            reader.start()
            let (status, _, errors) = try await DLChild.run(["-O", "pipe", url.absoluteString], in: fixture)
            close(writer)
            #expect(status == 0, "\(errors)")
            #expect(errors.contains("saved \(pipe.standardizedFileURL.path)"), "\(errors)")
            #expect(Data(await reader.text().utf8) == Self.text)
            var info = stat()
            #expect(lstat(pipe.path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO, "still a pipe")
        }
    }

    @Test func aCutConnectionContinuesFromTheBytesWritten() async throws {
        try await withFixture(startsManager: false) { fixture in
            let url = fixture.serve("/out/cut.txt", .data(Self.text)) { $0.faults = [.closeAfter(100_000)] }
            let (status, output, errors) = try await DLChild.run(
                ["--retry-wait", "0.1", "-O", "-", url.absoluteString], in: fixture)
            #expect(status == 0, "\(errors)")
            #expect(Data(output.utf8) == Self.text, "byte for byte, once")
            let starts = fixture.server.requests("/out/cut.txt").map { $0.rangeStart ?? 0 }
            // From the 100,000 bytes written, with the 64 KiB before them asked for again to compare.
            #expect(starts == [0, fixture.rangeStart(continuing: 100_000)], "\(starts)")
        }
    }

    @Test func aFileThatChangedAfterBytesWentOutFailsWithTheOldStartOnly() async throws {
        try await withFixture(startsManager: false) { fixture in
            // The first answer stops after 100,000 bytes; the retry finds another version (other
            // bytes, another tag), answered in full: the library starts the file over, and the
            // bytes that went out cannot be taken back. The new version is served only once some
            // bytes went out, whatever the load (had none gone out, it would go out from its first
            // byte, rightly). How many of the 100,000 went out by the restart is the machine's
            // business: at least those seen, and the message says exactly how many.
            let path = "/out/changing.txt"
            let url = fixture.serve(path, .data(Self.text)) { $0.faults = [.holdThenCloseAfter(100_000)] }
            let child = try DLChild(["--retry-wait", "0.1", "-O", "-", url.absoluteString], in: fixture)
            defer { child.stop() }
            let seen = await child.output.wait { $0.utf8.count >= 40_000 }
            #expect(seen != nil)
            var changed = Route(body: .data(Self.otherText))
            changed.etag = "\"other\""
            fixture.server.setRoute(path, changed)
            fixture.server.release(path)
            let status = await child.exitStatus()
            let errors = await child.errors?.text() ?? ""
            #expect(status == 7, "\(errors)")
            let written = Data(await child.output.text().utf8)
            #expect((40_000...100_000).contains(written.count), "\(written.count) bytes")
            #expect(written == Self.text.prefix(written.count), "the first version's start only")
            #expect(
                errors.contains(
                    "the file changed on the server after \(written.count) bytes were written to standard output"),
                "\(errors)")
            #expect(fixture.server.requests(path).count == 2)
        }
    }

    /// Bytes rewritten under those that went out (a restart the session has not heard of yet)
    /// end the stream before anything after them goes out.
    @Test func bytesThatChangedUnderThoseWrittenEndTheStream() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dl-stream-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let partial = directory.appendingPathComponent("f.partial")
        let pipe = try SpawnedProcess.pipe()
        let reader = OutputReader(pipe.read)
        reader.start()
        let failures = Locked<[StandardOutputStream.Failure]>([])
        let stream = StandardOutputStream(
            partial: partial, keptBytes: 0, refusesBinary: false, output: pipe.write
        ) { failure in failures.withLock { $0.append(failure) } }
        try Data(Self.text.prefix(100_000)).writeWithoutSync(to: partial)
        await stream.drain(upTo: 100_000)
        // Cut and written anew in place, as a restart does: another version, longer than what went out.
        let file = try FileHandle(forWritingTo: partial)
        try file.truncate(atOffset: 0)
        try file.write(contentsOf: Self.otherText.prefix(150_000))
        try file.close()
        await stream.drain(upTo: 150_000)
        #expect(failures.withLock { $0 } == [.changed(written: 100_000)])
        #expect(await stream.writtenCount() == 100_000)
        close(pipe.write)
        #expect(Data(await reader.text().utf8) == Self.text.prefix(100_000))
    }

    /// A wrong checksum is found at the end, after the bytes that came went out (as with curl):
    /// status 9, and the message says how much went out. (How much did depends on whether the
    /// stream read the file before the library found it wrong and removed it: a local server
    /// sends it in a moment.)
    @Test func aWrongChecksumFailsAfterTheBytesWentOut() async throws {
        try await withFixture(startsManager: false) { fixture in
            let url = fixture.serve("/out/summed.txt", .data(Self.text))
            let wrong = String(repeating: "0", count: 64)
            let (status, output, errors) = try await DLChild.run(
                ["--sha256", wrong, "-O", "-", url.absoluteString], in: fixture)
            #expect(status == 9, "\(errors)")
            let written = Data(output.utf8)
            #expect(Self.text.starts(with: written), "the file's bytes only, in order")
            #expect(errors.contains("the file is not the one expected"), "\(errors)")
            if !written.isEmpty {
                #expect(
                    errors.contains("its \(Format.bytes(Int64(written.count))) already went to standard output"),
                    "\(errors)")
            }
        }
    }

    @Test func aClosedPipeEndsDlAtOnceAndTheStoreKeepsTheBytes() async throws {
        try await withFixture(startsManager: false) { fixture in
            let url = fixture.serve("/out/closed.txt", .data(Self.text)) { $0.faults = [.holdAfter(60_000)] }
            // `dl -O - URL | head -c 1000`, while the server holds the rest.
            let first = try DLChild(["-O", "-", url.absoluteString], in: fixture, outputLimit: 1000)
            defer { first.stop() }
            #expect(await first.child.ending() == .signalled(SIGPIPE), "as a filter ends: 141 in the shell")
            let partial = DLChild.store(fixture).appendingPathComponent("stdout/closed.txt.partial")
            #expect(fileLength(partial) == 60_000)

            fixture.server.release("/out/closed.txt")
            let (status, output, errors) = try await DLChild.run(["-O", "-", url.absoluteString], in: fixture)
            #expect(status == 0, "\(errors)")
            #expect(Data(output.utf8) == Self.text, "the new reader gets the whole file")
            #expect(errors.contains("resumed closed.txt from"), "\(errors)")
        }
    }

    @Test func jsonToAClosedPipeEndsDlAtOnce() async throws {
        try await withFixture(startsManager: false) { fixture in
            let url = fixture.serve("/out/json.txt", .data(Self.text)) { $0.faults = [.holdAfter(60_000)] }
            // `dl --json URL | head -3`, the third line once the server holds: without it, the file
            // would go on downloading into the folder.
            let child = try DLChild(
                ["--json", "--progress-interval", "0", url.absoluteString], in: fixture,
                closesOutputWhen: { $0.contains("\"bytes\":60000,") })
            defer { child.stop() }
            #expect(await child.child.ending() == .signalled(SIGPIPE))
            #expect(fileLength(fixture.file("json.txt.partial")) == 60_000, "the bytes stay for the same command")
        }
    }

    @Test func severalConnectionsCannotGoWithStandardOutput() async throws {
        try await withFixture(startsManager: false) { fixture in
            let (status, _, errors) = try await DLChild.run(
                ["-x", "4", "-O", "-", fixture.server.url("/a").absoluteString], in: fixture)
            #expect(status == 2)
            #expect(errors.contains("-O - writes the file in order as it comes, over one connection"), "\(errors)")
        }
    }

    /// `dl arguments` with both its outputs on an 80 × 24 terminal.
    static func onTerminal(_ arguments: [String], in fixture: Fixture) throws -> DLChild {
        try DLChild(arguments, in: fixture, output: .terminal(width: 80, height: 24))
    }

    static let binary = Data("MARKER-START".utf8) + Data((0..<20_000).map { UInt8(truncatingIfNeeded: $0 * 7) })

    @Test func binaryOnATerminalIsRefusedUnlessForced() async throws {
        try await withFixture(startsManager: false) { fixture in
            let url = fixture.serve("/out/image.bin", .data(Self.binary))
            let refused = try Self.onTerminal(["-O", "-", url.absoluteString], in: fixture)
            defer { refused.stop() }
            #expect(await refused.exitStatus() == 3)
            let text = await refused.output.text()
            #expect(text.contains("binary output can mess up your terminal: nothing was written"), "\(text)")
            #expect(!text.contains("MARKER-START"))
            // Kept in the store: `dl -O - URL | less` takes it from there.
            #expect(fixture.listing(DLChild.store(fixture).appendingPathComponent("stdout")) == ["image.bin"])

            let forced = try Self.onTerminal(["-o", "-", url.absoluteString], in: fixture)
            defer { forced.stop() }
            #expect(await forced.exitStatus() == 0)
            #expect(await forced.output.text().contains("MARKER-START"))
        }
    }

    @Test func textOnATerminalIsWrittenWithoutABar() async throws {
        try await withFixture(startsManager: false) { fixture in
            let url = fixture.serve("/out/notes.txt", .data(Self.text))
            let child = try Self.onTerminal(["-O", "-", url.absoluteString], in: fixture)
            defer { child.stop() }
            #expect(await child.exitStatus() == 0)
            let text = await child.output.text()
            #expect(text.contains("line 1\r\nline 2\r\n") && text.contains("line 20000\r\n"))
            #expect(!text.contains(LiveBlock.hideCursor), "no bar drawn between the file's lines")
            #expect(text.contains("saved /dev/stdout ("))
        }
    }

    /// `dl -O - URL | tar x` in a terminal: the bar on standard error moves with the bytes that
    /// went out.
    @Test func theBarOnATerminalFollowsTheStream() async throws {
        try await withFixture(startsManager: false) { fixture in
            let url = fixture.serve("/out/piped.txt", .data(Self.text)) { $0.faults = [.holdAfter(60_000)] }
            let child = try DLChild(
                ["-O", "-", url.absoluteString], in: fixture, output: .pipeWithErrorsOnTerminal(width: 100, height: 24))
            defer { child.stop() }
            #expect(await child.output.wait { $0.utf8.count >= 60_000 } != nil)
            let bar = await child.errors?.wait { text in
                DLTerminalTests.screen(text).contains { $0.hasPrefix("piped.txt ") && $0.contains("60.0 kB/209 kB") }
            }
            #expect(bar != nil, "a bar at the 60,000 bytes that went out")
            fixture.server.release("/out/piped.txt")
            #expect(await child.exitStatus() == 0)
            #expect(Data(await child.output.text().utf8) == Self.text)
        }
    }

    @Test(arguments: [
        ("plain text\n", false), ("caf\u{E9} \u{1F600}", false), ("a\u{0}b", true),
    ])
    func textAndBinaryAreToldApart(_ sample: String, _ isBinary: Bool) {
        #expect(StandardOutputStream.looksBinary(Array(sample.utf8), isWhole: true) == isBinary)
    }

    @Test func bytesThatAreNotUTF8LookBinaryButACutCharacterDoesNot() {
        let emoji = Array("\u{1F600}".utf8)
        #expect(StandardOutputStream.looksBinary(Array("ok ".utf8) + emoji.prefix(2), isWhole: false) == false)
        #expect(StandardOutputStream.looksBinary(Array("ok ".utf8) + emoji.prefix(2), isWhole: true) == true)
        #expect(StandardOutputStream.looksBinary([0xFF, 0xFE, 0x41], isWhole: false) == true)
    }
}
