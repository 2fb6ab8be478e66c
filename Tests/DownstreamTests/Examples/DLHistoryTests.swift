@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

/// `dl --json` tells why a download failed: its failure's line carries the download's history,
/// without the secrets of its URLs and headers.
@Suite(.timeLimit(.minutes(3)))
struct DLHistoryTests {
    @Test func aFailuresJSONLineHasTheHistoryWithoutSecrets() async throws {
        try await withFixture(startsManager: false) { fixture in
            fixture.server.setRoute("/h/old.bin", .redirect(302, to: "/h/gone.bin?sig=redirect-secret"))
            let url = fixture.server.url("/h/old.bin").absoluteString + "?token=query-secret"
            let (status, output, errors) = try await DLChild.run(
                ["--json", "--header", "Authorization: Bearer header-secret", url], in: fixture)
            #expect(status == 8, "\(output)\(errors)")
            let objects = try output.split(separator: "\n").map {
                try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            }
            let failed = try #require(objects.first { $0["event"] as? String == "failed" })
            let history = try #require(failed["history"] as? [[String: Any]])
            #expect(history.map { $0["kind"] as? String } == ["request", "redirect", "response", "failed"])
            #expect(history.map { $0["statusCode"] as? Int } == [nil, 302, 404, 404])
            #expect((history[0]["url"] as? String)?.hasSuffix("/h/old.bin?token=***") == true)
            #expect((history[1]["url"] as? String)?.hasSuffix("/h/gone.bin?sig=***") == true)
            #expect(history.allSatisfy { ($0["date"] as? String)?.hasSuffix("Z") == true })
            for secret in ["query-secret", "redirect-secret", "header-secret"] {
                #expect(!output.contains(secret), "the output holds \(secret)")
            }
        }
    }
}
