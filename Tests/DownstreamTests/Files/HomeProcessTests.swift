@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Child processes with a `HOME` of their own keep their store there, follow a home folder that
/// moved between a kill and a relaunch, and, as a uid the password database does not know, work
/// with `HOME` and fail clearly without it.
@Suite(
    .timeLimit(.minutes(2)),
    .enabled(if: HomeDirectoryTests.isLinux, "the default store is in the data directory of $HOME on Linux only"))
struct HomeProcessTests {
    @Test func aProcessKeepsItsStoreInItsHOME() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 300_000, seed: 4101)
            let url = fixture.serve("/home/one.bin", body)
            let home = try Self.makeHome(fixture)
            let files = home.appendingPathComponent("files", isDirectory: true)
            let identifier = "home-\(UUID().uuidString)"
            let (status, output) = try await ChildProcess.run(
                try ChildProcess.executable("DownstreamTestClient"),
                ["many", "--identifier", identifier, "--directory", files.path, url.absoluteString],
                environment: Self.environment(home: home.path))
            #expect(status == 0, "\(output)")
            let store = Self.store(identifier, home: home)
            #expect(output.contains("store=\(store.path)\n"), "\(output)")
            #expect(POSIXFile.isDirectory(atPath: store.path))
            try body.expectMatches(files.appendingPathComponent("one.bin"))
            // Nothing in the password database's home, which Foundation would have given.
            let passwordHome = try #require(HomeDirectory.passwordDatabaseHome(of: geteuid()))
            #expect(!FileManager.default.fileExists(atPath: Self.store(identifier, home: passwordHome).path))
        }
    }

    /// Four files, each with bytes on disk that its record counts, when the process is killed;
    /// the home folder moves; the relaunch, with the new `HOME`, finds the store there and
    /// continues every file from its bytes at the new place, and writes nothing at the old one.
    @Test func aHomeMovedBetweenAKillAndARelaunchLosesNothing() async throws {
        try await withFixture(startsManager: false) { fixture in
            let old = try Self.makeHome(fixture)
            let moved = old.deletingLastPathComponent().appendingPathComponent("moved", isDirectory: true)
            let paths = (0..<4).map { "/moved/file\($0).bin" }
            let bodies = (0..<4).map { Body.pattern(count: 600_000, seed: 4110 + UInt64($0)) }
            for (path, body) in zip(paths, bodies) {
                // The first request closes early: its end saves the record with its bytes before
                // the retry goes out. The retry is held after more bytes: the kill comes there.
                fixture.serve(path, body) { $0.faults = [.closeAfter(200_000), .holdAfter(100_000)] }
            }
            let client = try ChildProcess.executable("DownstreamTestClient")
            let identifier = "home-\(UUID().uuidString)"
            let arguments = { (home: URL) in
                [
                    "many", "--identifier", identifier, "--retry-delay-ms", "10", "--directory",
                    home.appendingPathComponent("files", isDirectory: true).path,
                ] + paths.map { fixture.server.url($0).absoluteString }
            }

            let first = try ChildProcess.Running(
                client, arguments(old), environment: Self.environment(home: old.path))
            for path in paths {
                #expect(await fixture.server.waitForRequests(2, path: path), "\(path) was retried")
            }
            first.kill()
            #expect(await first.ending() == .signalled(SIGKILL))
            for path in paths { fixture.server.release(path) }
            let logged = fixture.server.requests().count

            try FileManager.default.moveItem(at: old, to: moved)
            let files = moved.appendingPathComponent("files", isDirectory: true)
            let store = Self.store(identifier, home: moved)
            let starts = CrashTests.expectedStarts(paths: paths, files: files, store: store, home: moved.path)
            for path in paths {
                #expect((starts[path] ?? 0) > 0, "\(path) has bytes on disk that its record counts")
            }

            let (status, output) = try await ChildProcess.run(
                client, arguments(moved), environment: Self.environment(home: moved.path))
            #expect(status == 0, "\(output)")
            #expect(output.contains("store=\(store.path)\n"), "\(output)")
            // One request per file, from its bytes at the new place (after the overlap before them).
            let launched = fixture.server.requests().dropFirst(logged)
            for (path, body) in zip(paths, bodies) {
                #expect(launched.filter { $0.path == path }.map(\.rangeStart) == [starts[path]], "\(path)")
                try body.expectMatches(files.appendingPathComponent(URL(fileURLWithPath: path).lastPathComponent))
            }
            #expect(!FileManager.default.fileExists(atPath: old.path), "something was written at the old place")
            #expect(fixture.listing(files) == ["file0.bin", "file1.bin", "file2.bin", "file3.bin"])
            #expect(CrashTests.isEmptyStore(store))
        }
    }

    @Test func dlKeepsItsStoreInHOME() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 200_000, seed: 4102)
            let url = fixture.serve("/home/dl.bin", body)
            let home = try Self.makeHome(fixture)
            // An empty XDG_DATA_HOME counts as unset.
            let (status, output, errors) = try await DLChild.run(
                [url.absoluteString], in: fixture, environment: ["HOME": home.path, "XDG_DATA_HOME": ""])
            #expect(status == 0, "\(output)\(errors)")
            try body.expectMatches(fixture.file("dl.bin"))
            #expect(POSIXFile.isDirectory(atPath: Self.store("dl", home: home).path))
        }
    }

    /// A uid without an entry in the password database (a container's arbitrary uid) with `HOME`:
    /// the store is there, and the files are the user's.
    @Test(.enabled(if: isRoot, "only root can become a user the password database does not know"))
    func aUserThePasswordDatabaseDoesNotKnowUsesHOME() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 300_000, seed: 4103)
            let url = fixture.serve("/home/unlisted.bin", body)
            let (uid, home) = try Self.makeUnlistedHome(fixture)
            let files = home.appendingPathComponent("files", isDirectory: true)
            let identifier = "home-\(UUID().uuidString)"
            let (status, output) = try await ChildProcess.run(
                try ChildProcess.executable("DownstreamTestClient"),
                ["many", "--uid", "\(uid)", "--identifier", identifier, "--directory", files.path, url.absoluteString],
                environment: Self.environment(home: home.path))
            #expect(status == 0, "\(output)")
            let store = Self.store(identifier, home: home)
            #expect(output.contains("store=\(store.path)\n"), "\(output)")
            let file = files.appendingPathComponent("unlisted.bin")
            try body.expectMatches(file)
            #expect(Self.owner(of: file) == uid)
            #expect(Self.owner(of: store) == uid)
        }
    }

    /// The same uid without a usable `HOME` (unset, empty, relative: Foundation would make the
    /// last two the working directory, and the first `/var/empty`) has no default store: the
    /// manager fails with an error that says to set HOME, nothing is asked or written.
    @Test(
        .enabled(if: isRoot, "only root can become a user the password database does not know"),
        arguments: [String?.none, "", "relative"])
    func aUserWithoutHomeHasNoDefaultStore(_ home: String?) async throws {
        try await withFixture(startsManager: false) { fixture in
            let url = fixture.serve("/home/nowhere.bin", Body.pattern(count: 1000, seed: 4104))
            let (uid, ownHome) = try Self.makeUnlistedHome(fixture)
            let files = ownHome.appendingPathComponent("files", isDirectory: true)
            let identifier = "home-\(UUID().uuidString)"
            let running = try ChildProcess.Running(
                try ChildProcess.executable("DownstreamTestClient"),
                ["many", "--uid", "\(uid)", "--identifier", identifier, "--directory", files.path, url.absoluteString],
                environment: Self.environment(home: home), capturingOutput: true)
            let output = await running.readOutput()
            #expect(await running.ending() == .exited(1), "\(output)")
            #expect(
                output.hasPrefix("failed The download manager cannot start: its store has no default place"),
                "\(output)")
            #expect(output.contains("user \(uid) has no home"), "\(output)")
            #expect(output.contains("set HOME"), "\(output)")
            #expect(fixture.server.requests().isEmpty)
            #expect(fixture.listing(files).isEmpty)
            let working = FileManager.default.currentDirectoryPath
            for base in ["/", "/var/empty", working, working + "/relative"] {
                let store = Self.store(identifier, home: base).path
                #expect(!FileManager.default.fileExists(atPath: store), "\(store)")
            }
        }
    }

    /// Without a home directory the home is only missing as a base of records: a manager with a
    /// store of its own starts and downloads.
    @Test(.enabled(if: isRoot, "only root can become a user the password database does not know"))
    func aUserWithoutHomeDownloadsWithAStoreItNames() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 300_000, seed: 4105)
            let url = fixture.serve("/home/named.bin", body)
            let (uid, home) = try Self.makeUnlistedHome(fixture)
            let files = home.appendingPathComponent("files", isDirectory: true)
            let store = home.appendingPathComponent("store", isDirectory: true)
            let (status, output) = try await ChildProcess.run(
                try ChildProcess.executable("DownstreamTestClient"),
                [
                    "many", "--uid", "\(uid)", "--identifier", "home-\(UUID().uuidString)", "--store", store.path,
                    "--directory", files.path, url.absoluteString,
                ],
                environment: Self.environment(home: nil))
            #expect(status == 0, "\(output)")
            #expect(output.contains("store=\(store.path)\n"), "\(output)")
            try body.expectMatches(files.appendingPathComponent("named.bin"))
            #expect(CrashTests.isEmptyStore(store))
        }
    }

    static let isRoot = geteuid() == 0

    /// The test's environment with `HOME` as given (nil: unset) and no `XDG_DATA_HOME`.
    static func environment(home: String?) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home
        environment["XDG_DATA_HOME"] = nil
        return environment
    }

    /// Where the library puts the store of `identifier` by default, for a process whose home is
    /// `home`.
    static func store(_ identifier: String, home: URL) -> URL {
        store(identifier, home: home.path)
    }

    static func store(_ identifier: String, home: String) -> URL {
        URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(
            ".local/share/Downstream/\(identifier)", isDirectory: true)
    }

    /// A home folder in the fixture's directory, with a `files` folder.
    static func makeHome(_ fixture: Fixture) throws -> URL {
        let home = fixture.directory.deletingLastPathComponent().appendingPathComponent("home", isDirectory: true)
        try FileManager.default.createDirectory(
            at: home.appendingPathComponent("files", isDirectory: true), withIntermediateDirectories: true)
        return home
    }

    /// A uid the password database does not know, and a home folder (with `files`) that it owns,
    /// as does the fixture's directory.
    static func makeUnlistedHome(_ fixture: Fixture) throws -> (uid: uid_t, home: URL) {
        let uid = try #require(HomeDirectoryTests.unlistedUser())
        let home = try makeHome(fixture)
        let root = home.deletingLastPathComponent()
        for directory in [root, fixture.directory, home, home.appendingPathComponent("files")] {
            #expect(chown(directory.path, uid, uid) == 0, "chown \(directory.path): errno \(errno)")
        }
        return (uid, home)
    }

    static func owner(of file: URL) -> uid_t? {
        var status = stat()
        return stat(file.path, &status) == 0 ? status.st_uid : nil
    }
}
