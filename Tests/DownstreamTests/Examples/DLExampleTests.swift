@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

@testable import dl

/// `dl` run as a user runs it, its output in a pipe: several URLs, input files, plain, JSON and
/// quiet output, usage errors.
@Suite(.timeLimit(.minutes(3)))
struct DLExampleTests {
    @Test func severalURLsWithOneMissingSaveTheOthersAndExitWithTheHTTPStatus() async throws {
        try await withFixture(startsManager: false) { fixture in
            let first = Body.pattern(count: 2_000_000, seed: 1)
            let second = Body.pattern(count: 300_000, seed: 2)
            let urls = [
                fixture.serve("/files/a.bin", first), fixture.server.url("/files/missing.bin"),
                fixture.serve("/files/b.bin", second),
            ]
            let (status, output, errors) = try await DLChild.run(urls.map(\.absoluteString), in: fixture)
            #expect(status == 8, "\(output)\(errors)")
            #expect(output.contains("saved \(fixture.file("a.bin").path) ("))
            #expect(output.contains("saved \(fixture.file("b.bin").path) ("))
            // A failure goes to standard error: `dl URL >/dev/null` still shows it.
            #expect(errors.contains("failed missing.bin: the server answered HTTP 404"))
            #expect(!output.contains("failed missing.bin"))
            #expect(output.hasSuffix("2 saved, 1 failed (exit status 8: \(dlExitMeaning(8)))\n"), "\(output)")
            try first.expectMatches(fixture.file("a.bin"))
            try second.expectMatches(fixture.file("b.bin"))
            #expect(fixture.listing() == ["a.bin", "b.bin"])
            // The 404 left nothing to continue: dl forgot it.
            #expect(DLChild.storedDownloads(fixture).isEmpty)
        }
    }

    @Test func aRateLimitHoldsForAllTheFilesTogether() async throws {
        try await withFixture(startsManager: false) { fixture in
            let bodies = [Body.pattern(count: 300_000, seed: 5), Body.pattern(count: 300_000, seed: 6)]
            let urls = [fixture.serve("/r/a.bin", bodies[0]), fixture.serve("/r/b.bin", bodies[1])]
            let started = ContinuousClock.now
            let (status, output, errors) = try await DLChild.run(
                ["--limit-rate", "200k"] + urls.map(\.absoluteString), in: fixture)
            let elapsed = ContinuousClock.now - started
            #expect(status == 0, "\(output)\(errors)")
            try bodies[0].expectMatches(fixture.file("a.bin"))
            try bodies[1].expectMatches(fixture.file("b.bin"))
            // 600,000 bytes at 204,800 bytes/s, less the burst (16 KiB) and one chunk (16 KiB) that
            // may go ahead: at least 2.77 s. (A lower bound only: a loaded machine makes it
            // slower, never faster.)
            #expect(elapsed >= .milliseconds(2_700), "\(elapsed)")
        }
    }

    @Test func aFileComesOverSeveralConnectionsWithX() async throws {
        try await withFixture(startsManager: false) { fixture in
            // Past the first 4 MiB, 8.5 MB: enough for two segments of the default 4 MiB.
            let body = Body.pattern(count: 12_800_000, seed: 7)
            // Both segment requests stop early until the test has seen both: they are at once.
            let url = fixture.serve("/x/big.bin", body) { $0.faults = [.none, .holdAfter(1000), .holdAfter(1000)] }
            let child = try DLChild(["-x", "4", url.absoluteString], in: fixture)
            defer { child.stop() }
            #expect(await fixture.server.waitForRequests(3, path: "/x/big.bin"))
            fixture.server.release("/x/big.bin")
            #expect(await child.exitStatus() == 0)
            try body.expectMatches(fixture.file("big.bin"))
            let requests = fixture.server.requests("/x/big.bin")
            // The first 4 MiB, then the rest split over two connections at once.
            #expect(requests.count == 3, "\(requests.map(\.rangeStart))")
            #expect(Set(requests.dropFirst().map(\.connection)).count == 2)
        }
    }

    @Test func plainOutputHasALinePerEventAndProgressLines() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 3_000_000, seed: 3)
            let url = fixture.serve("/dl/movie.mp4", body) { $0.faults = [.holdAfter(1_000_000)] }
            let child = try DLChild(["--progress-interval", "0", url.absoluteString], in: fixture)
            defer { child.stop() }
            #expect(await child.output.wait(for: "movie.mp4  33%  1.00 MB/3.00 MB"))
            fixture.server.release("/dl/movie.mp4")
            #expect(await child.exitStatus() == 0)
            let output = await child.output.text()
            let lines = output.split(separator: "\n")
            #expect(lines.first == "started movie.mp4 from \(url.absoluteString)")
            // wget's habit: how much, how long, how fast.
            let saved = try #require(lines.last.map(String.init))
            #expect(saved.hasPrefix("saved \(fixture.file("movie.mp4").path) (3.00 MB in "), "\(saved)")
            #expect(saved.hasSuffix("B/s)"), "\(saved)")
            #expect(!output.contains("\u{1B}"), "no escape sequences in a pipe")
            #expect(await child.errors?.text() == "")
            try body.expectMatches(fixture.file("movie.mp4"))
        }
    }

    @Test func jsonLinesParseAndTellEachEvent() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 3_000_000, seed: 4)
            let url = fixture.serve("/j/a.bin", body) { $0.faults = [.holdAfter(1_000_000)] }
            let missing = fixture.server.url("/j/missing.bin")
            let child = try DLChild(
                ["--json", "--progress-interval", "0", url.absoluteString, missing.absoluteString], in: fixture)
            defer { child.stop() }
            #expect(await child.output.wait(for: #""bytes":1000000"#))
            fixture.server.release("/j/a.bin")
            #expect(await child.exitStatus() == 8)
            let objects = try await child.output.text().split(separator: "\n").map { line in
                try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
            }
            let events = objects.map { $0["event"] as? String ?? "?" }
            #expect(events.filter { $0 == "started" }.count == 2)
            #expect(events.last == "summary")

            let progress = try #require(
                objects.first { $0["event"] as? String == "progress" && $0["bytes"] as? Int == 1_000_000 })
            #expect(progress["id"] as? Int == 1)
            #expect(progress["total"] as? Int == 3_000_000)
            let failed = try #require(objects.first { $0["event"] as? String == "failed" })
            #expect(failed["id"] as? Int == 2)
            #expect(failed["kind"] as? String == "HTTP status")
            #expect(failed["status"] as? Int == 404)
            #expect(failed["exitCode"] as? Int == 8)
            #expect(failed["resumable"] as? Bool == false)
            let completed = try #require(objects.first { $0["event"] as? String == "completed" })
            #expect(completed["id"] as? Int == 1)
            #expect(completed["path"] as? String == fixture.file("a.bin").path)
            #expect(completed["kept"] as? Bool == false)
            let summary = try #require(objects.last)
            #expect(summary["saved"] as? Int == 1)
            #expect(summary["failed"] as? Int == 1)
            #expect(summary["exitCode"] as? Int == 8)
            try body.expectMatches(fixture.file("a.bin"))
        }
    }

    @Test func quietPrintsNothingOnSuccessAndFailuresOnStandardError() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 200_000, seed: 5)
            let url = fixture.serve("/q/a.bin", body)
            let (status, output, errors) = try await DLChild.run(["-q", url.absoluteString], in: fixture)
            #expect(status == 0)
            #expect(output.isEmpty)
            #expect(errors.isEmpty)
            try body.expectMatches(fixture.file("a.bin"))

            let missing = try await DLChild.run(["--quiet", fixture.server.url("/q/none").absoluteString], in: fixture)
            #expect(missing.status == 8)
            #expect(missing.output.isEmpty)
            #expect(missing.errors.hasPrefix("dl: failed none: the server answered HTTP 404"))
        }
    }

    @Test func anInputFileGivesEachURLItsOptions() async throws {
        try await withFixture(startsManager: false) { fixture in
            let first = Body.pattern(count: 500_000, seed: 6)
            let second = Body.pattern(count: 100_000, seed: 7)
            let third = Body.pattern(count: 300_000, seed: 8)
            let a = fixture.serve("/i/a.bin", first)
            let b = fixture.serve("/i/b.bin", second)
            let mirror = fixture.serve("/mirror/c.bin", third)
            let sample = fixture.storeDirectory.appendingPathComponent("a.sample")
            try FileManager.default.createDirectory(at: fixture.storeDirectory, withIntermediateDirectories: true)
            try first.bytes(0..<first.count).writeWithoutSync(to: sample)
            let digest = try Digest(.sha256, ofFileAt: sample)
            let list = fixture.storeDirectory.appendingPathComponent("urls.txt")
            let listText = """
                # two files and a mirror
                \(a.absoluteString)
                  out=renamed.bin
                  checksum=sha-256=\(digest.hexValue)

                \(b.absoluteString)
                  checksum=md5=00000000000000000000000000000000
                \(fixture.server.url("/i/c.bin").absoluteString)
                  mirror=\(mirror.absoluteString)
                """
            try Data(listText.utf8).writeWithoutSync(to: list)

            let (status, output, errors) = try await DLChild.run(["-i", list.path], in: fixture)
            #expect(status == 9, "the wrong checksum: \(output)\(errors)")
            #expect(output.contains("saved \(fixture.file("renamed.bin").path) ("))
            #expect(errors.contains("failed b.bin: the file is not the one expected"))
            // One line for the switch, with why the URL left failed; no retry line with its error.
            let original = fixture.server.url("/i/c.bin").absoluteString
            #expect(
                output.contains(
                    "c.bin: switched to \(mirror.absoluteString) (\(original): the server answered HTTP 404"),
                "\(output)")
            #expect(!output.contains("retrying c.bin"), "\(output)")
            #expect(output.contains("saved \(fixture.file("c.bin").path) ("))
            try first.expectMatches(fixture.file("renamed.bin"))
            try third.expectMatches(fixture.file("c.bin"))
            #expect(fixture.listing() == ["c.bin", "renamed.bin"])
        }
    }

    /// A host that refuses the connection while the network is up fails at once, with the
    /// reason, as wget and aria2 do (the library would try again: dl's default differs).
    @Test func aRefusedConnectionFailsAtOnceWithTheReason() async throws {
        try await withFixture(startsManager: false) { fixture in
            let closed = try TestServer(listening: false)
            defer { closed.shutdown() }
            let url = closed.url("/refused.bin")
            let (status, output, errors) = try await DLChild.run([url.absoluteString], in: fixture)
            #expect(status == 4, "\(output)\(errors)")
            #expect(!output.contains("retrying") && !errors.contains("retrying"), "\(output)\(errors)")
            #expect(errors.contains("failed refused.bin: "), "\(errors)")
            #expect(Session.failsAtOnce.contains(.cannotConnectToHost))
        }
    }

    /// `-4`, `-6` and `--connect-timeout`, curl's and wget's: libcurl honours them (the test
    /// server listens on IPv4 only); over URLSession, which cannot, the file fails saying so.
    @Test func addressFamilyAndConnectTimeoutFlags() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 5_000, seed: 2315)
            let url = fixture.serve("/af/a.bin", body)
            let four = try await DLChild.run(["-4", "--connect-timeout", "5", url.absoluteString], in: fixture)
            let six = try await DLChild.run(["-6", "-t", "1", "-O", "six.bin", url.absoluteString], in: fixture)
            if DownloadManager.Configuration.automaticMeansLibcurl, TransportUnderTest.isLibcurlAvailable {
                #expect(four.status == 0, "\(four.output)\(four.errors)")
                try body.expectMatches(fixture.file("a.bin"))
                #expect(six.status == 4, "\(six.output)\(six.errors)")
                #expect(six.errors.contains("failed six.bin: the connection failed"), "\(six.errors)")
            } else {
                #expect(four.status == 1, "\(four.output)\(four.errors)")
                #expect(four.errors.contains("cannot be honoured by the URLSession transport"), "\(four.errors)")
            }
            #expect(fixture.server.requests("/af/a.bin").count <= 1)
        }
    }

    /// `--proxy` and `--no-proxy`: through DownstreamTesting's proxy, or past it.
    @Test func theProxyFlags() async throws {
        try await withFixture(startsManager: false) { fixture in
            let proxy = try TestProxy()
            defer { proxy.shutdown() }
            let body = Body.pattern(count: 20_000, seed: 2402)
            let url = fixture.serve("/px/a.bin", body)
            let through = try await DLChild.run(
                ["--proxy", "127.0.0.1:\(proxy.port)", url.absoluteString], in: fixture)
            guard DownloadManager.Configuration.automaticMeansLibcurl, TransportUnderTest.isLibcurlAvailable else {
                #expect(through.status == 1, "\(through.errors)")
                #expect(through.errors.contains("network.proxy"), "\(through.errors)")
                return
            }
            #expect(through.status == 0, "\(through.output)\(through.errors)")
            try body.expectMatches(fixture.file("a.bin"))
            #expect(proxy.requests.map(\.target) == [url.absoluteString])
            let past = try await DLChild.run(
                ["--proxy", proxy.url.absoluteString, "--no-proxy", "127.0.0.1", "-O", "b.bin", url.absoluteString],
                in: fixture)
            #expect(past.status == 0, "\(past.output)\(past.errors)")
            #expect(proxy.requests.count == 1)
        }
    }

    /// A file dl cannot write names where: a folder that is a file, a pseudo file system (which
    /// reports no room at all: it is not called "insufficient space").
    @Test func aFileThatCannotBeWrittenNamesWhere() async throws {
        try await withFixture(startsManager: false) { fixture in
            let url = fixture.serve("/w/a.bin", Body.pattern(count: 1_000, seed: 2306))
            let notAFolder = fixture.file("plain")
            try Data("a file".utf8).writeWithoutSync(to: notAFolder)
            let underAFile = try await DLChild.run(["-o", notAFolder.path + "/a.bin", url.absoluteString], in: fixture)
            #expect(underAFile.status == 3, "\(underAFile.output)\(underAFile.errors)")
            #expect(
                underAFile.errors.contains("failed a.bin: file system error at \(notAFolder.path): "),
                "\(underAFile.errors)")
            guard FileManager.default.fileExists(atPath: "/proc/self") else { return }
            let proc = try await DLChild.run(["-o", "/proc/a.bin", url.absoluteString], in: fixture)
            #expect(proc.status == 3, "\(proc.output)\(proc.errors)")
            #expect(proc.errors.contains("failed a.bin: file system error at /proc/a.bin"), "\(proc.errors)")
            #expect(!proc.errors.contains("space"), "\(proc.errors)")
        }
    }

    /// A store dl cannot make (here a file stands where its folder would go) says so and names the
    /// place, instead of claiming that another dl is running.
    @Test func aStoreThatCannotBeMadeIsNotCalledBusy() async throws {
        try await withFixture(startsManager: false) { fixture in
            let url = fixture.serve("/s/a.bin", Body.pattern(count: 1_000, seed: 2305))
            let data = DLChild.dataDirectory(fixture)
            try FileManager.default.createDirectory(
                at: data.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("not a folder".utf8).writeWithoutSync(to: data)
            let (status, output, errors) = try await DLChild.run([url.absoluteString], in: fixture)
            #expect(status == 1, "\(output)\(errors)")
            #expect(!errors.contains("another dl is running"), "\(errors)")
            #expect(errors.contains("dl: cannot start: "), "\(errors)")
            #expect(errors.contains(data.path), "\(errors)")
            #expect(fixture.server.requests("/s/a.bin").isEmpty)
        }
    }

    /// curl's habits: `-o FILE` saves the one URL as that file (not in a folder of that name), and
    /// `-O URL` saves it under its own name.
    @Test func curlsMinusOAndMinusOWork() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 20_000, seed: 2304)
            let url = fixture.serve("/c/remote.bin", body)
            let (status, output, errors) = try await DLChild.run(["-o", "out.bin", url.absoluteString], in: fixture)
            #expect(status == 0, "\(output)\(errors)")
            try body.expectMatches(fixture.file("out.bin"))
            #expect(!POSIXFile.isDirectory(atPath: fixture.file("out.bin").path))

            let (again, rerun, rerunErrors) = try await DLChild.run(["-O", url.absoluteString], in: fixture)
            #expect(again == 0, "\(rerun)\(rerunErrors)")
            try body.expectMatches(fixture.file("remote.bin"))
            #expect(fixture.listing() == ["out.bin", "remote.bin"])
        }
    }

    /// Servers and CDNs treat a client without a `User-Agent` as a bot: dl names itself, and
    /// `-U` (wget's and curl's flag) sends another.
    @Test func dlSaysWhatItIsToServersAndUSendsAnother() async throws {
        try await withFixture(startsManager: false) { fixture in
            let url = fixture.serve("/ua/a.bin", Body.pattern(count: 1_000, seed: 2302))
            let (status, output, errors) = try await DLChild.run([url.absoluteString], in: fixture)
            #expect(status == 0, "\(output)\(errors)")
            let version = downstreamVersion
            #expect(
                fixture.server.requests("/ua/a.bin").last?.header("User-Agent")
                    == "dl/\(version) Downstream/\(version)")

            let other = fixture.serve("/ua/b.bin", Body.pattern(count: 1_000, seed: 2303))
            let (again, rerun, rerunErrors) = try await DLChild.run(
                ["-U", "Wget/1.21", "-H", "X-Tag: v1", other.absoluteString], in: fixture)
            #expect(again == 0, "\(rerun)\(rerunErrors)")
            #expect(fixture.server.requests("/ua/b.bin").last?.header("User-Agent") == "Wget/1.21")
            #expect(fixture.server.requests("/ua/b.bin").last?.header("X-Tag") == "v1", "-H sends a header")
        }
    }

    /// Lists are often made by others: a name from one that would leave the output folder is a
    /// usage error naming its line, and nothing is downloaded or written anywhere; a subfolder
    /// inside it is fine.
    @Test func aNameFromAListNeverLeavesTheOutputFolder() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 10_000, seed: 2301)
            let url = fixture.serve("/l/a.bin", body)
            let outside = fixture.directory.deletingLastPathComponent()
            for name in ["../escaped.bin", outside.appendingPathComponent("absolute.bin").path] {
                let list = fixture.file("urls.txt")
                try Data("\(url.absoluteString)\n  out=\(name)\n".utf8).writeWithoutSync(to: list)
                let (status, output, errors) = try await DLChild.run(["-i", list.path, "-o", "out"], in: fixture)
                #expect(status == 2, "\(output)\(errors)")
                #expect(errors.contains("urls.txt:2: out=\(name) "), "\(errors)")
                #expect(errors.contains("a name from a list stays inside the output folder"), "\(errors)")
            }
            #expect(fixture.server.requests("/l/a.bin").isEmpty)
            #expect(!FileManager.default.fileExists(atPath: fixture.file("escaped.bin").path))
            #expect(!FileManager.default.fileExists(atPath: outside.appendingPathComponent("absolute.bin").path))

            let list = fixture.file("urls.txt")
            try Data("\(url.absoluteString)\n  out=sub/inside.bin\n".utf8).writeWithoutSync(to: list)
            let (status, output, errors) = try await DLChild.run(["-i", list.path, "-o", "out"], in: fixture)
            #expect(status == 0, "\(output)\(errors)")
            try body.expectMatches(fixture.file("out/sub/inside.bin"))
        }
    }

    @Test func urlsComeFromStandardInputWithADash() async throws {
        try await withFixture(startsManager: false) { fixture in
            let first = Body.pattern(count: 100_000, seed: 9)
            let second = Body.pattern(count: 200_000, seed: 10)
            let a = fixture.serve("/s/a.bin", first)
            let b = fixture.serve("/s/b.bin", second)
            let input = "\(a.absoluteString)\n\n# and\n\(b.absoluteString)\n"
            let (status, output, errors) = try await DLChild.run(["-i", "-", "-o", "sub"], in: fixture, input: input)
            #expect(status == 0, "\(output)\(errors)")
            try first.expectMatches(fixture.file("sub/a.bin"))
            try second.expectMatches(fixture.file("sub/b.bin"))
            #expect(output.hasSuffix("2 saved\n"))
        }
    }

    @Test(arguments: [
        (["--foo"], 2, "dl: unknown option '--foo'\nTry 'dl --help' for more information.\n"),
        (["-j", "x", "http://127.0.0.1:9/a"], 2, "dl: bad number 'x' for '-j'"),
        ([], 2, "dl: missing URL\n"),
        (
            ["--sha256", String(repeating: "0", count: 64), "http://127.0.0.1:9/a", "http://127.0.0.1:9/b"], 2,
            "give each URL its checksum in an input file"
        ),
        (["-i", "/nonexistent/urls.txt"], 3, "dl: cannot read the input file '/nonexistent/urls.txt'\n"),
    ])
    func aBadCommandLineSaysWhyAndExitsWithTwo(_ arguments: [String], _ expected: Int, _ message: String)
        async throws
    {
        try await withFixture(startsManager: false) { fixture in
            let (status, output, errors) = try await DLChild.run(arguments, in: fixture)
            #expect(status == Int32(expected))
            #expect(output.isEmpty)
            #expect(errors.contains(message), "\(errors)")
            #expect(fixture.listing().isEmpty)
        }
    }

    @Test func helpAndVersion() async throws {
        try await withFixture(startsManager: false) { fixture in
            let help = try await DLChild.run(["--help"], in: fixture)
            #expect(help.status == 0)
            #expect(help.output.hasPrefix("Usage: dl [OPTION]... URL...\n"))
            #expect(help.output.contains("  130   interrupted"))
            let version = try await DLChild.run(["-V"], in: fixture)
            #expect(version.status == 0)
            #expect(version.output.hasPrefix("dl "))
        }
    }
}

/// What `dl --help` says exit status `code` means.
func dlExitMeaning(_ code: Int32) -> String {
    ExitCode.all.first { $0.rawValue == code }?.meaning ?? "?"
}
