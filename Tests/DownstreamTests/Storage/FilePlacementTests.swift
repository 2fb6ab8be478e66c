import Foundation
import Testing

@testable import Downstream
import DownstreamTesting

/// A complete partial file goes to its destination in one step, whole, and never over a file the
/// policy keeps.
struct FilePlacementTests {
    /// A directory of its own for each test, with a partial file of `bytes`.
    static func withPartial(_ bytes: String, _ body: (URL, URL) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("placement-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let partial = directory.appendingPathComponent("file.bin.partial")
        try Data(bytes.utf8).writeWithoutSync(to: partial)
        try body(directory, partial)
    }

    /// A file named `file.bin` in `directory`, there before the download: "old".
    static func oldFile(in directory: URL) throws -> URL {
        let file = directory.appendingPathComponent("file.bin")
        try Data("old".utf8).writeWithoutSync(to: file)
        return file
    }

    static func text(_ file: URL) throws -> String {
        String(decoding: try Data(contentsOf: file), as: UTF8.self)
    }

    @Test func aFreeNameTakesTheFileAndThePartialFileIsGone() throws {
        try Self.withPartial("new") { directory, partial in
            let placed = try FilePlacement.place(partial.path, at: .directory(directory), suggestedName: "file.bin")
            #expect(placed.lastPathComponent == "file.bin")
            #expect(try Self.text(placed) == "new")
            #expect(!POSIXFile.exists(partial))
        }
    }

    @Test func aTakenNameGivesAUniqueNameAndTheOtherFileStays() throws {
        try Self.withPartial("new") { directory, partial in
            let taken = try Self.oldFile(in: directory)
            let placed = try FilePlacement.place(partial.path, at: .directory(directory), suggestedName: "file.bin")
            try Self.expectNumbered(placed, beside: taken, partial: partial)
        }
    }

    /// The new file is `file (1).bin` beside the old one, which stays; the partial file is gone.
    static func expectNumbered(_ placed: URL, beside taken: URL, partial: URL) throws {
        #expect(
            placed.path
                == taken.deletingLastPathComponent().appendingPathComponent(FileName.numbered("file.bin", 1)).path)
        #expect(try text(placed) == "new")
        #expect(try text(taken) == "old")
        #expect(!POSIXFile.exists(partial))
    }

    /// An exact file whose name is taken gets a unique name in its own directory.
    @Test func aTakenExactFileGivesAUniqueNameBesideIt() throws {
        try Self.withPartial("new") { directory, partial in
            let taken = try Self.oldFile(in: directory)
            let placed = try FilePlacement.place(
                partial.path, at: .file(taken, ifExists: .uniqueName), suggestedName: "other.bin")
            try Self.expectNumbered(placed, beside: taken, partial: partial)
        }
    }

    @Test func aTakenNameFailsAFailPolicyAndKeepsBothFiles() throws {
        try Self.withPartial("new") { directory, partial in
            let taken = try Self.oldFile(in: directory)
            #expect(throws: DownloadError.self) {
                try FilePlacement.place(partial.path, at: .file(taken, ifExists: .fail), suggestedName: "file.bin")
            }
            #expect(try Self.text(taken) == "old")
            #expect(try Self.text(partial) == "new")
        }
    }

    @Test func aTakenNameIsTheDownloadsFileForUseExisting() throws {
        try Self.withPartial("new") { directory, partial in
            let taken = try Self.oldFile(in: directory)
            let placed = try FilePlacement.place(
                partial.path, at: .file(taken, ifExists: .useExisting), suggestedName: "file.bin")
            #expect(placed.path == taken.path)
            #expect(try Self.text(taken) == "old")
            #expect(!POSIXFile.exists(partial))
        }
    }

    @Test func replacingTakesTheNameWhole() throws {
        try Self.withPartial("new") { directory, partial in
            let taken = try Self.oldFile(in: directory)
            let placed = try FilePlacement.place(
                partial.path, at: .file(taken, ifExists: .replace), suggestedName: "file.bin")
            #expect(try Self.text(placed) == "new")
            #expect(!POSIXFile.exists(partial))
        }
    }
}
