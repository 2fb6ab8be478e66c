@testable import Downstream
import Foundation
import Testing

/// Where the home directory comes from: on Linux `$HOME` when it is an absolute path, else the
/// password database; a record relative to it waits, reported, in a process that has none.
struct HomeDirectoryTests {
    @Test(arguments: ["/srv/app", "/", "/home/someone/"])
    func anAbsoluteHOMEIsTheHomeDirectory(_ home: String) {
        #expect(HomeDirectory.path(home: home) { "/root" } == home)
        #expect(HomeDirectory.path(home: home) { nil } == home)
    }

    /// Foundation makes a relative or empty `HOME` absolute against the working directory (for a
    /// uid without an entry): here it is not a home at all.
    @Test(arguments: [nil, "", "relative", "srv/app", "./home", "~"])
    func aHOMEThatIsNotAnAbsolutePathIsIgnored(_ home: String?) {
        #expect(HomeDirectory.path(home: home) { "/root" } == "/root")
        #expect(HomeDirectory.path(home: home) { nil } == nil)
    }

    @Test(arguments: ["", "relative"])
    func aPasswordDatabaseHomeThatIsNotAnAbsolutePathIsNone(_ entry: String) {
        #expect(HomeDirectory.path(home: nil) { entry } == nil)
    }

    @Test(.enabled(if: isLinux, "Apple platforms use the system's home directory"))
    func theProcessHomeIsItsHOME() {
        let home = getenv("HOME").map { String(cString: $0) }
        if let home, home.hasPrefix("/") {
            #expect(HomeDirectory.current == home)
        } else {
            #expect(HomeDirectory.current == HomeDirectory.passwordDatabaseHome(of: geteuid()))
        }
    }

    /// `getpwuid_r` against `/etc/passwd` read by hand: root's home, and none for a uid it does
    /// not list.
    @Test(.enabled(if: isLinux, "reads /etc/passwd"))
    func thePasswordDatabaseGivesAUsersHome() throws {
        let lines = try String(contentsOfFile: "/etc/passwd", encoding: .utf8).split(separator: "\n")
        let entries = lines.map { $0.split(separator: ":", omittingEmptySubsequences: false) }.filter { $0.count >= 6 }
        let root = try #require(entries.first { $0[2] == "0" })
        #expect(HomeDirectory.passwordDatabaseHome(of: 0) == String(root[5]))
        let unknown = try #require(Self.unlistedUser())
        #expect(!entries.contains { $0[2] == "\(unknown)" })
    }

    /// A record that names its files relative to the home directory, read by a process without
    /// one, is not resolved: kept, with a reason that says to set HOME; with the home directory
    /// of a later launch (moved), it names the files there.
    @Test func aRecordRelativeToTheHomeWaitsForAProcessWithOne() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "home-record-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let home = root.appendingPathComponent("home", isDirectory: true)
        let directory = root.appendingPathComponent("store", isDirectory: true)
        let file = home.appendingPathComponent("files/a.bin")
        let url = URL(string: "https://example.com/a.bin")!
        let record = StoredDownload(
            id: DownloadID(), request: DownloadRequest(url: url, to: .file(file)), url: url,
            location: PartialLocation(path: file.path + ".partial"))
        do {
            // Every record in a file of its own.
            let store = try DownloadStore(
                identifier: "home-\(UUID().uuidString)", directory: directory, home: home.path, journals: false)
            defer { store.release() }
            _ = try store.create(record)
        }
        let recordFile = directory.appendingPathComponent("\(record.id.rawValue.uuidString).record")
        let stored = try String(contentsOf: recordFile, encoding: .isoLatin1)
        #expect(stored.contains("~home/files/a.bin.partial"))

        let noHome = DownloadStore.read(
            recordFile, bases: PathBases(home: nil, store: directory.path), placement: .unchecked)
        guard case .unresolved(let reason) = noHome else {
            Issue.record("read without a home: \(noHome)")
            return
        }
        #expect(reason.contains("relative to the home directory"))
        #expect(reason.contains("set HOME"))
        #expect(DownloadStore.records(in: directory, home: nil).isEmpty)

        let moved = "/elsewhere/home"
        let restored = DownloadStore.records(in: directory, home: moved)
        #expect(restored.map(\.partialPath) == ["/elsewhere/home/files/a.bin.partial"])
        #expect(restored.map(\.destination.path) == ["/elsewhere/home/files/a.bin"])
    }

    /// A uid the password database does not know: 54321, or the next one it does not.
    static func unlistedUser() -> uid_t? {
        (54321..<54421).first { HomeDirectory.passwordDatabaseHome(of: $0) == nil }
    }

    static var isLinux: Bool {
        #if os(Linux)
            true
        #else
            false
        #endif
    }
}
