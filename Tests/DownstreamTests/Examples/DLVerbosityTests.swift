@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

@testable import dl

/// wget's `-nv` and curl's and wget's `-v`: one line per file, or every request and response
/// head too.
@Suite(.timeLimit(.minutes(1)))
struct DLVerbosityTests {
    @Test func noVerboseSaysOneLinePerFile() async throws {
        try await withFixture(startsManager: false) { fixture in
            let url = fixture.serve("/nv/a.bin", Body.pattern(count: 30_000, seed: 2309))
            let missing = fixture.server.url("/nv/missing.bin")
            let (status, output, errors) = try await DLChild.run(
                ["-nv", "--progress-interval", "0", url.absoluteString, missing.absoluteString], in: fixture)
            #expect(status == 8)
            let lines = output.split(separator: "\n").map(String.init)
            #expect(lines.count == 2, "\(output)")
            #expect(lines.first?.hasPrefix("saved \(fixture.file("a.bin").path) (") == true, "\(output)")
            #expect(lines.last?.hasPrefix("1 saved, 1 failed") == true, "\(output)")
            #expect(errors == "failed missing.bin: the server answered HTTP 404 (Not Found)\n")
        }
    }

    @Test func verboseShowsEachRequestAndResponseHeadWithCredentialsHidden() async throws {
        try await withFixture(startsManager: false) { fixture in
            let url = fixture.serve("/v/a.bin", Body.pattern(count: 30_000, seed: 2310)) {
                $0.requiredAuthorization = "Basic " + Data("alice:pw".utf8).base64EncodedString()
            }
            let (status, output, errors) = try await DLChild.run(
                ["-v", "-u", "alice:pw", url.absoluteString], in: fixture)
            #expect(status == 0, "\(output)\(errors)")
            #expect(output.contains("saved \(fixture.file("a.bin").path) ("), "\(output)")
            #expect(errors.contains("a.bin > GET \(url.absoluteString)\n"), "\(errors)")
            #expect(errors.contains("a.bin < HTTP 401 "), "\(errors)")
            #expect(errors.contains("a.bin > Authorization: (hidden)\n"), "\(errors)")
            #expect(errors.contains("a.bin < HTTP 20"), "\(errors)")
            #expect(!errors.contains(Data("alice:pw".utf8).base64EncodedString()), "\(errors)")
        }
    }

    @Test func theModesAreOptionsOfTheirOwn() throws {
        #expect(try Options.parse(["-nv"]).mode == .brief)
        #expect(try Options.parse(["--no-verbose"]).mode == .brief)
        #expect(try Options.parse(["-v"]).mode == .verbose)
        #expect(throws: UsageError.self) { try Options.parse(["-v", "-q"]) }
    }
}
