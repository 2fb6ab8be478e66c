@testable import Downstream
import Foundation
import Testing

/// How records store paths: relative to the deepest base they are inside, absolute otherwise.
struct PathBasesTests {
    let bases = PathBases(
        home: "/var/mobile/Containers/Data/Application/A1",
        store: "/var/mobile/Containers/Data/Application/A1/Library/Store",
        registered: ["group": URL(fileURLWithPath: "/var/mobile/Containers/Shared/AppGroup/G1", isDirectory: true)])

    @Test func aPathIsStoredRelativeToTheDeepestBase() {
        #expect(bases.stored("/var/mobile/Containers/Data/Application/A1/Documents/a.bin") == "~home/Documents/a.bin")
        #expect(
            bases.stored("/var/mobile/Containers/Data/Application/A1/Library/Store/x.partial") == "~store/x.partial")
        #expect(bases.stored("/var/mobile/Containers/Shared/AppGroup/G1/b.bin") == "~app.group/b.bin")
        #expect(bases.stored("/var/mobile/Containers/Data/Application/A1") == "~home")
    }

    @Test func aPathOutsideEveryBaseStaysAbsolute() {
        #expect(bases.stored("/tmp/a.bin") == "/tmp/a.bin")
        // A sibling whose name starts like a base is not inside it.
        #expect(
            bases.stored("/var/mobile/Containers/Data/Application/A10/a.bin")
                == "/var/mobile/Containers/Data/Application/A10/a.bin")
    }

    /// Apple platforms' /var is a link to /private/var: either form is inside the base.
    @Test func thePrivateFormOfAPathIsInsideTheSameBase() {
        #expect(
            bases.stored("/private/var/mobile/Containers/Data/Application/A1/Documents/a.bin")
                == "~home/Documents/a.bin")
    }

    @Test func aStoredPathResolvesAgainstTheBasesOfTheLaunch() {
        let moved = PathBases(
            home: "/var/mobile/Containers/Data/Application/B2",
            store: "/var/mobile/Containers/Data/Application/B2/Library/Store")
        #expect(moved.resolved("~home/Documents/a.bin") == "/var/mobile/Containers/Data/Application/B2/Documents/a.bin")
        #expect(
            moved.resolved("~store/x.partial") == "/var/mobile/Containers/Data/Application/B2/Library/Store/x.partial")
        #expect(moved.resolved("~home") == "/var/mobile/Containers/Data/Application/B2")
        // Absolute, as records before relocatable paths stored them: as they are.
        #expect(moved.resolved("/tmp/a.bin") == "/tmp/a.bin")
        // A base this launch does not name.
        #expect(moved.resolved("~app.group/b.bin") == nil)
    }

    /// A record as today's format wrote it (absolute paths) loads with its paths as they were.
    @Test func aRecordWithAbsolutePathsLoadsAsItWas() throws {
        let url = URL(string: "https://example.com/a.bin")!
        let request = DownloadRequest(
            url: url, to: .file(URL(fileURLWithPath: "/var/mobile/Containers/Data/Application/A1/Documents/a.bin")))
        let record = StoredDownload(
            id: DownloadID(), request: request, url: url,
            location: PartialLocation(path: "/var/mobile/Containers/Data/Application/A1/Documents/a.bin.partial"))
        let old = try JSONDecoder().decode(StoredDownload.self, from: record.json)
        #expect(old.resolvingPaths(bases) == record)
        let relative = try JSONDecoder().decode(StoredDownload.self, from: record.json(relativeTo: bases))
        #expect(relative.partialPath == "~home/Documents/a.bin.partial")
        #expect(relative.destination.path == "~home/Documents/a.bin")
        #expect(relative.resolvingPaths(bases) == record)
    }
}
