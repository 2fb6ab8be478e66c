@testable import Downstream
import Foundation
import Testing

/// Where the home directory comes from: on Linux `$HOME` when it is an absolute path, else the
/// password database.
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
