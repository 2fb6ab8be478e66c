import Downstream
import Foundation
import Testing

/// The version is written once (`downstreamVersion`); what users read it from agrees with it.
struct VersionTests {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func text(_ path: String) throws -> String {
        try String(contentsOf: packageRoot.appendingPathComponent(path), encoding: .utf8)
    }

    @Test func theVersionIsThreeNumbers() {
        let parts = downstreamVersion.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 3)
        #expect(parts.allSatisfy { part in !part.isEmpty && part.allSatisfy(\.isASCII) && Int(part) != nil })
    }

    @Test func theChangelogsNewestReleaseIsThisVersion() throws {
        let releases = try Self.text("CHANGELOG.md").split(separator: "\n")
            .filter { $0.hasPrefix("## [") && !$0.hasPrefix("## [Unreleased]") }
        let newest = try #require(releases.first)
        #expect(newest.hasPrefix("## [\(downstreamVersion)] - "), "\(newest)")
    }

    @Test(arguments: ["README.md", "DocC/Downstream.docc/GettingStarted.md"])
    func thePackageSnippetAsksForThisVersion(_ document: String) throws {
        let text = try Self.text(document)
        #expect(text.contains("from: \"\(downstreamVersion)\")"))
        #expect(!text.contains("branch: \"main\""))
    }

    @Test func theDefaultUserAgentSaysThisVersion() {
        #expect(DownloadManager.Configuration.Network.defaultUserAgent == "Downstream/\(downstreamVersion)")
    }
}
