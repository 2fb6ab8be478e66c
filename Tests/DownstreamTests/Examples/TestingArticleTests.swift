import Foundation
import Testing

/// TestingYourDownloads.md shows TestingSamplesTests.swift as its complete test file: the two stay
/// the same, so that the article's example is one that compiles and passes.
@Suite struct TestingArticleTests {
    @Test func theArticlesCompleteTestFileIsTheOneThatRuns() throws {
        let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let root = examples.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let article = try String(
            contentsOf: root.appendingPathComponent("DocC/Downstream.docc/TestingYourDownloads.md"), encoding: .utf8)
        let test = try String(contentsOf: examples.appendingPathComponent("TestingSamplesTests.swift"), encoding: .utf8)

        // The article's last block, and the test file after its opening comment.
        let block = article.components(separatedBy: "```swift\n").last?.components(separatedBy: "\n```").first
        let code = test.split(separator: "\n", omittingEmptySubsequences: false)
            .drop { $0.hasPrefix("//") || $0.isEmpty }
            .joined(separator: "\n")
        #expect(block == code.trimmingCharacters(in: .newlines))
    }
}
