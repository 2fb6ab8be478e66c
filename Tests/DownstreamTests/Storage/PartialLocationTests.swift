import Foundation
import Testing

@testable import Downstream

/// A partial file's name must never change: a new version would not find the bytes an earlier one
/// kept. The expected names are FNV-1a of "target|url" (and "|id"), computed apart from the code.
struct PartialLocationTests {
    let url = URL(string: "https://example.com/a/episode.mp3")!
    let directory = URL(fileURLWithPath: "/downloads", isDirectory: true)
    let file = URL(fileURLWithPath: "/downloads/show.mp3")

    @Test func aDirectoryDestinationsPartialFileIsNamedAsEver() {
        let location = PartialLocation(url: url, destination: .directory(directory), partialsDirectory: nil)
        #expect(location.path == "/downloads/episode.mp3.0a4dc2be.partial")
    }

    @Test func aFileDestinationsPartialFileInThePartialsDirectoryIsNamedAsEver() {
        let partials = URL(fileURLWithPath: "/partials", isDirectory: true)
        let location = PartialLocation(url: url, destination: .file(file), partialsDirectory: partials)
        #expect(location.path == "/partials/show.mp3.a1985e34918caaa3.partial")
    }

    @Test func aSeparateDownloadsPartialFileIsNamedAsEver() throws {
        let id = Download.ID(rawValue: try #require(UUID(uuidString: "3B25F7FF-0EA6-4209-A539-E09E40EE66A0")))
        let location = PartialLocation(
            url: url, destination: .directory(directory), partialsDirectory: nil, separateFrom: id)
        #expect(location.path == "/downloads/episode.mp3.48fa8e29.partial")
    }

    @Test func aFileDestinationsPartialFileIsBesideIt() {
        let location = PartialLocation(url: url, destination: .file(file), partialsDirectory: nil)
        #expect(location.path == "/downloads/show.mp3.partial")
    }

    /// A file's name may take all 255 bytes a name may have: its partial file's name then has a
    /// key instead of the whole name and `.partial`, and fits too.
    @Test func aLongFileNamesPartialFileHasANameThatFits() {
        let name = String(repeating: "x", count: 250) + ".bin"
        let long = URL(fileURLWithPath: "/downloads/" + name)
        let location = PartialLocation(url: url, destination: .file(long), partialsDirectory: nil)
        #expect(location.path.parentPath == "/downloads")
        #expect(location.path.pathName.utf8.count <= 255)
        #expect(location.path.pathName.hasPrefix(String(repeating: "x", count: 100)))
        #expect(location.path.hasSuffix(".partial"))
        #expect(
            PartialLocation.misplacement(
                of: location.path, destinationPath: long.path, destinationIsDirectory: false, partialsDirectory: nil)
                == nil)
        // One byte shorter, and `<name>.partial` fits.
        let fits = URL(fileURLWithPath: "/downloads/" + String(repeating: "x", count: 243) + ".bin")
        #expect(
            PartialLocation(url: url, destination: .file(fits), partialsDirectory: nil).path == fits.path + ".partial")
    }

    /// The path the manager passes (decoded once for many requests) gives the same name.
    @Test func aGivenDestinationPathGivesTheSameName() {
        let destination = Destination.directory(directory)
        let given = PartialLocation(
            url: url, destination: destination, destinationPath: destination.path, partialsDirectory: nil)
        #expect(given == PartialLocation(url: url, destination: destination, partialsDirectory: nil))
    }
}
