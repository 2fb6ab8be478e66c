@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

@testable import dl

/// `dl` run as a user runs it with the command lines of curl's users: `-sL`, `-x HOST:PORT`, a URL
/// without a scheme, `-o` pairs, URL globs.
@Suite(.timeLimit(.minutes(3)))
struct DLCurlFlagsTests {
    /// `dl -sL -o f URL`: curl's silent and follow, saved and quiet.
    @Test func minusSLIsSilentAndSaves() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 50_000, seed: 4501)
            let url = fixture.serve("/s/a.bin", body)
            for arguments in [["-sL", "-o", "f", url.absoluteString], ["-fsL", url.absoluteString, "-o", "g"]] {
                let (status, output, errors) = try await DLChild.run(arguments, in: fixture)
                #expect(status == 0, "\(arguments) \(output)\(errors)")
                #expect(output.isEmpty, "\(output)")
                #expect(errors.isEmpty, "\(errors)")
            }
            try body.expectMatches(fixture.file("f"))
            try body.expectMatches(fixture.file("g"))
            // -s with a number is still aria2's split: the file saved, with progress lines.
            let split = try await DLChild.run(["-s", "2", "-o", "h", url.absoluteString], in: fixture)
            #expect(split.status == 0, "\(split.output)\(split.errors)")
            #expect(split.output.contains("saved \(fixture.file("h").path)"), "\(split.output)")
            try body.expectMatches(fixture.file("h"))
            // A failure still shows with -s, as curl's -sS would show it.
            let missing = try await DLChild.run(["-sL", fixture.server.url("/s/missing").absoluteString], in: fixture)
            #expect(missing.status == 8, "\(missing.output)\(missing.errors)")
            #expect(missing.output.isEmpty)
            #expect(missing.errors.contains("the server answered HTTP 404"), "\(missing.errors)")
        }
    }

    /// curl's `-x HOST:PORT`: the request goes through the proxy; aria2's `-x N` is connections.
    @Test func minusXWithAHostIsAProxy() async throws {
        try await withFixture(startsManager: false) { fixture in
            let proxy = try TestProxy()
            defer { proxy.shutdown() }
            let body = Body.pattern(count: 20_000, seed: 4502)
            let url = fixture.serve("/x/a.bin", body)
            let through = try await DLChild.run(["-x", "127.0.0.1:\(proxy.port)", url.absoluteString], in: fixture)
            guard DownloadManager.Configuration.automaticMeansLibcurl, TransportUnderTest.isLibcurlAvailable else {
                // URLSession on Linux has no proxies: dl says so rather than going direct.
                #expect(through.status == 1, "\(through.errors)")
                #expect(through.errors.contains("network.proxy"), "\(through.errors)")
                #expect(proxy.requests.isEmpty)
                return
            }
            #expect(through.status == 0, "\(through.output)\(through.errors)")
            try body.expectMatches(fixture.file("a.bin"))
            #expect(proxy.requests.map(\.target) == [url.absoluteString])
            let curl = try await DLChild.run(
                ["-x", "http://127.0.0.1:\(proxy.port)", "-o", "b.bin", url.absoluteString], in: fixture)
            #expect(curl.status == 0, "\(curl.output)\(curl.errors)")
            try body.expectMatches(fixture.file("b.bin"))
            #expect(proxy.requests.count == 2)
            let connections = try await DLChild.run(["-x", "2", "-o", "c.bin", url.absoluteString], in: fixture)
            #expect(connections.status == 0, "\(connections.output)\(connections.errors)")
            try body.expectMatches(fixture.file("c.bin"))
            #expect(proxy.requests.count == 2)
        }
    }

    /// `HOST:PORT/PATH` against an HTTP-only server: `http://`, said on `-v`.
    @Test func aURLWithoutASchemeIsHTTP() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 30_000, seed: 4503)
            let url = fixture.serve("/n/a.bin", body)
            let written = "127.0.0.1:\(fixture.server.port)/n/a.bin"
            let (status, output, errors) = try await DLChild.run(["-v", written], in: fixture)
            #expect(status == 0, "\(output)\(errors)")
            try body.expectMatches(fixture.file("a.bin"))
            #expect(errors.hasPrefix("dl: no scheme in '\(written)': using \(url.absoluteString)\n"), "\(errors)")
            // In an input file too; without -v, nothing is said.
            let list = try await DLChild.run(
                ["-i", "-", "-d", "list"], in: fixture, input: "127.0.0.1:\(fixture.server.port)/n/a.bin\n")
            #expect(list.status == 0, "\(list.output)\(list.errors)")
            #expect(!list.errors.contains("no scheme"), "\(list.errors)")
            try body.expectMatches(fixture.file("list/a.bin"))
            // What is not a URL at all is still a usage error.
            let bad = try await DLChild.run(["ftp://127.0.0.1/a.bin"], in: fixture)
            #expect(bad.status == 2)
            #expect(bad.errors.contains("'ftp://127.0.0.1/a.bin' is not an http or https URL"), "\(bad.errors)")
        }
    }

    /// curl's `-o a U1 -o b U2`: each name its URL's file (it used to make a folder b/).
    @Test func minusOPairsWithTheURLsInOrder() async throws {
        try await withFixture(startsManager: false) { fixture in
            let bodies = [Body.pattern(count: 10_000, seed: 4504), Body.pattern(count: 12_000, seed: 4505)]
            let urls = [fixture.serve("/p/1.bin", bodies[0]), fixture.serve("/p/2.bin", bodies[1])]
            let (status, output, errors) = try await DLChild.run(
                ["-o", "a", urls[0].absoluteString, "-o", "b", urls[1].absoluteString], in: fixture)
            #expect(status == 0, "\(output)\(errors)")
            try bodies[0].expectMatches(fixture.file("a"))
            try bodies[1].expectMatches(fixture.file("b"))
            #expect(fixture.listing() == ["a", "b"])
            // curl's -O before another option is curl's: the file keeps the URL's name (it was "-L").
            let remote = try await DLChild.run(["-O", "-L", urls[1].absoluteString], in: fixture)
            #expect(remote.status == 0, "\(remote.output)\(remote.errors)")
            try bodies[1].expectMatches(fixture.file("2.bin"))
            #expect(fixture.listing() == ["2.bin", "a", "b"])
            let tooMany = try await DLChild.run(["-o", "c", "-o", "d", urls[0].absoluteString], in: fixture)
            #expect(tooMany.status == 2)
            #expect(tooMany.errors.contains("2 names (-o, -O) for 1 URL"), "\(tooMany.errors)")
        }
    }

    /// A glob downloads each of its URLs, named by `#1`.
    @Test func aGlobDownloadsEachFileNamedByItsText() async throws {
        try await withFixture(startsManager: false) { fixture in
            let bodies = (1...3).map { Body.pattern(count: 5_000 + Int64($0), seed: 4510 + UInt64($0)) }
            for (index, body) in bodies.enumerated() { _ = fixture.serve("/g/f\(index + 1).bin", body) }
            let glob = fixture.server.url("/g/").absoluteString + "f[1-3].bin"
            let (status, output, errors) = try await DLChild.run(["-o", "n#1.bin", glob], in: fixture)
            #expect(status == 0, "\(output)\(errors)")
            for (index, body) in bodies.enumerated() { try body.expectMatches(fixture.file("n\(index + 1).bin")) }
            #expect(fixture.listing() == ["n1.bin", "n2.bin", "n3.bin"])
            #expect(fixture.server.requests("/g/f1.bin").count == 1)
            let bad = try await DLChild.run([fixture.server.url("/g/").absoluteString + "f[3-1].bin"], in: fixture)
            #expect(bad.status == 2)
            #expect(bad.errors.contains("goes down"), "\(bad.errors)")
            #expect(fixture.listing() == ["n1.bin", "n2.bin", "n3.bin"])
        }
    }
}
