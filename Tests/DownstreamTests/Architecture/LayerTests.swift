@testable import Downstream
import Foundation
import Testing

/// The layers of `Sources/Downstream/README.md` hold: no file names a type declared in a folder
/// of a higher layer, and no folders name each other's types in a loop.
@Suite struct LayerTests {

    struct Layers {
        /// Layer number by folder.
        var byFolder: [String: Int] = [:]
        var names: [Int: String] = [:]

        /// Reads the table of `README.md`: rows `| <number> <name> | `Folder`, `Folder` | … |`.
        init(readme: String) {
            for line in readme.split(separator: "\n") where line.hasPrefix("| ") {
                let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
                guard cells.count >= 2, let number = Int(cells[0].prefix { $0.isNumber }) else { continue }
                names[number] = cells[0]
                for folder in cells[1].split(separator: ",") {
                    byFolder[folder.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: ["`"])] = number
                }
            }
        }
    }

    static let sources = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/Downstream")

    /// Every Swift file of the library, by its path below `Sources/Downstream`.
    static func sourceFiles() throws -> [String: SourceScan] {
        var files: [String: SourceScan] = [:]
        let enumerator = FileManager.default.enumerator(atPath: sources.path)
        while let path = enumerator?.nextObject() as? String {
            guard path.hasSuffix(".swift") else { continue }
            let text = try String(contentsOf: sources.appendingPathComponent(path), encoding: .utf8)
            files[path] = SourceScan(text)
        }
        return files
    }

    /// `"<folder>/<file> → <type>"` for each type a file names that a higher layer declares.
    static func upwardNames(_ files: [String: SourceScan], _ layers: Layers) -> (Set<String>, unplaced: Set<String>) {
        var declaredIn: [String: String] = [:]
        for (path, scan) in files {
            let folder = String(path.split(separator: "/")[0])
            for name in scan.declared where declaredIn[name] == nil { declaredIn[name] = folder }
        }
        var upward: Set<String> = []
        var unplaced: Set<String> = []
        for (path, scan) in files {
            let folder = String(path.split(separator: "/")[0])
            guard let layer = layers.byFolder[folder] else {
                unplaced.insert(folder)
                continue
            }
            for name in scan.named.subtracting(scan.declared) {
                guard let home = declaredIn[name], let homeLayer = layers.byFolder[home], homeLayer > layer else {
                    continue
                }
                upward.insert("\(folder)/\((path as NSString).lastPathComponent) → \(name)")
            }
        }
        return (upward, unplaced)
    }

    @Test func noFileNamesATypeOfAHigherLayer() throws {
        let readme = try String(contentsOf: Self.sources.appendingPathComponent("README.md"), encoding: .utf8)
        let layers = Layers(readme: readme)
        #expect(layers.byFolder.count >= 9, "the table of Sources/Downstream/README.md was not read")
        let (upward, unplaced) = Self.upwardNames(try Self.sourceFiles(), layers)
        #expect(unplaced.isEmpty, "folders in no layer of Sources/Downstream/README.md: \(unplaced.sorted())")
        #expect(upward.isEmpty, "names of a higher layer:\n\(upward.sorted().joined(separator: "\n"))")
    }

    /// The engine seam: the `Download` folder names none of the engines' types (their setups, the
    /// transfers, the segment map, the plan of a request) and sets no header. What it may name of
    /// the `Transfer` folder is the end a machine takes and the progress sink it implements.
    @Test func theDownloadKnowsNoEngine() throws {
        let files = try Self.sourceFiles()
        let transferTypes = files.filter { $0.key.hasPrefix("Transfer/") }.values.reduce(into: Set<String>()) {
            $0.formUnion($1.declared)
        }
        let downloadFiles = files.filter { $0.key.hasPrefix("Download/") }
        let named = downloadFiles.values.reduce(into: Set<String>()) { $0.formUnion($1.named) }
        #expect(transferTypes.contains("RangedTransfer"), "the Transfer folder was not read")
        #expect(named.intersection(transferTypes) == ["TransferEnd", "ProgressSink"])
        for engineType in ["RangedEngine", "SegmentedEngine", "SystemEngine", "EngineChoice"] {
            #expect(!named.contains(engineType), "the Download folder names \(engineType)")
        }
        let headerSetters = try downloadFiles.keys.filter { path in
            let text = try String(contentsOf: Self.sources.appendingPathComponent(path), encoding: .utf8)
            return text.contains("setValue(") || text.contains("addValue(")
        }
        #expect(headerSetters.isEmpty, "files of the Download folder that set headers: \(headerSetters.sorted())")
    }

    /// What a download gives its engines and gets back: of the types the engines' folders
    /// (`Engine`, `System`, `Transport`) declare, the only ones the `Download` folder may name.
    static let engineSeam: Set<String> = [
        "Attempt", "AttemptEnd", "AttemptKind", "AttemptOwner", "AttemptTarget", "DownloadEngines", "EngineSettings",
        "RunningAttempt",
    ]

    /// `"<file> → <type>"` for each type of the engines' folders beyond ``engineSeam`` that a file
    /// of the `Download` folder names (a system transfer, a router, a session, a transport).
    static func engineNamesBeyondTheSeam(_ files: [String: SourceScan]) -> Set<String> {
        let engineTypes = files.filter { path, _ in
            ["Engine/", "System/", "Transport/"].contains { path.hasPrefix($0) }
        }.values.reduce(into: Set<String>()) { $0.formUnion($1.declared) }
        var beyond: Set<String> = []
        for (path, scan) in files where path.hasPrefix("Download/") {
            for name in scan.named.intersection(engineTypes).subtracting(engineSeam).subtracting(scan.declared) {
                beyond.insert("\(path) → \(name)")
            }
        }
        return beyond
    }

    /// The seam holds: the `Download` folder names nothing of the engines but the seam, so that
    /// what one engine does (adopting system tasks, counting background work) stays in `Engine`.
    @Test func theDownloadSeesOnlyTheEngineSeam() throws {
        let files = try Self.sourceFiles()
        let declared = files.values.reduce(into: Set<String>()) { $0.formUnion($1.declared) }
        #expect(declared.isSuperset(of: Self.engineSeam), "a type of the seam is gone: rename it here too")
        let beyond = Self.engineNamesBeyondTheSeam(files)
        #expect(
            beyond.isEmpty, "engine types named in the Download folder:\n\(beyond.sorted().joined(separator: "\n"))")
    }

    @Test func anEngineTypeInTheDownloadFolderIsNamedWithItsFile() {
        let files = [
            "Engine/RunningAttempt.swift": SourceScan("final class RunningAttempt {}"),
            "System/SystemTransfer.swift": SourceScan("final class SystemTransfer {}"),
            "Download/Download.swift": SourceScan(
                "actor Download { func shutDown(_ run: RunningAttempt) -> Bool { run.transfer is SystemTransfer } }"),
        ]
        #expect(Self.engineNamesBeyondTheSeam(files) == ["Download/Download.swift → SystemTransfer"])
        #expect(Self.engineNamesBeyondTheSeam(files.filter { !$0.key.hasPrefix("System/") }).isEmpty)
    }

    /// For each folder, the other folders whose types its files name.
    static func folderEdges(_ files: [String: SourceScan]) -> [String: Set<String>] {
        var declaredIn: [String: String] = [:]
        for (path, scan) in files {
            let folder = String(path.split(separator: "/")[0])
            for name in scan.declared where declaredIn[name] == nil { declaredIn[name] = folder }
        }
        var edges: [String: Set<String>] = [:]
        for (path, scan) in files {
            let folder = String(path.split(separator: "/")[0])
            for name in scan.named.subtracting(scan.declared) {
                guard let home = declaredIn[name], home != folder else { continue }
                edges[folder, default: []].insert(home)
            }
        }
        return edges
    }

    /// A loop of folders, if there is one: each names a type of the next, and the last one a
    /// type of the first.
    static func folderLoop(_ edges: [String: Set<String>]) -> [String]? {
        var finished: Set<String> = []
        var path: [String] = []
        func visit(_ folder: String) -> [String]? {
            if let start = path.firstIndex(of: folder) { return Array(path[start...]) }
            guard !finished.contains(folder) else { return nil }
            path.append(folder)
            for next in (edges[folder] ?? []).sorted() {
                if let loop = visit(next) { return loop }
            }
            path.removeLast()
            finished.insert(folder)
            return nil
        }
        for folder in edges.keys.sorted() {
            if let loop = visit(folder) { return loop }
        }
        return nil
    }

    @Test func noFoldersNameEachOtherInALoop() throws {
        let loop = Self.folderLoop(Self.folderEdges(try Self.sourceFiles()))
        #expect(loop == nil, "folders in a loop: \((loop ?? []).joined(separator: " → "))")
    }

    @Test func aLoopOfFoldersIsFound() {
        let files = [
            "A/One.swift": SourceScan("struct One { var two: Two }"),
            "B/Two.swift": SourceScan("struct Two { var three: Three }"),
            "C/Three.swift": SourceScan("struct Three { var one: One }"),
            "D/Four.swift": SourceScan("struct Four { var one: One }"),
        ]
        #expect(Self.folderLoop(Self.folderEdges(files)) == ["A", "B", "C"])
        #expect(Self.folderLoop(Self.folderEdges(files.filter { $0.key != "C/Three.swift" })) == nil)
    }

    /// The folders of `Tests/DownstreamTests` mirror those of `Sources/Downstream`: a test of a
    /// file is found in the folder of the same name. Besides: this suite, the tests of the
    /// examples and of the DownstreamTesting library, the fuzz tests of the parsers of server text
    /// (of several layers, with their shared fuzzer), and the helpers tests share.
    @Test func testFoldersMirrorSourceFolders() throws {
        let tests = Self.sources.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Tests/DownstreamTests")
        func folders(_ url: URL) throws -> Set<String> {
            Set(
                try FileManager.default.contentsOfDirectory(atPath: url.path).filter {
                    POSIXFile.isDirectory(atPath: url.appendingPathComponent($0).path)
                })
        }
        let others: Set<String> = ["Architecture", "Examples", "DownstreamTesting", "Fuzzing", "Helpers"]
        let strays = try folders(tests).subtracting(folders(Self.sources)).subtracting(others)
        #expect(strays.isEmpty, "test folders with no source folder: \(strays.sorted())")
    }

    @Test func theScanSeesDeclarationsAndNamesButNotCommentsOrStrings() {
        let scan = SourceScan(
            """
            /// A `Hidden` in a doc comment.
            public final class Shown: Sendable {
                let text = "Quoted \\(Interpolated)"
                /* Block */ var value: Used
                struct Nested {}
            }
            @_spi(Testing) public protocol Seam {}
            """)
        #expect(scan.declared == ["Shown", "Seam"])
        #expect(scan.named.contains("Used"))
        #expect(scan.named.contains("Sendable"))
        #expect(!scan.named.contains("Hidden"))
        #expect(!scan.named.contains("Quoted"))
        #expect(!scan.named.contains("Block"))
    }

    @Test func aWrongEdgeIsNamedWithItsFile() {
        let layers = Layers(readme: "| 1 Low | `Low` | |\n| 2 High | `High` | |\n")
        let files = [
            "Low/Bottom.swift": SourceScan("struct Bottom { var top: Top }"),
            "High/Top.swift": SourceScan("struct Top { var bottom: Bottom }"),
        ]
        let (upward, unplaced) = Self.upwardNames(files, layers)
        #expect(upward == ["Low/Bottom.swift → Top"])
        #expect(unplaced.isEmpty)
    }
}
