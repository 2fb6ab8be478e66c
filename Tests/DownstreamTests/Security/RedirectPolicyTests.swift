@testable import Downstream
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The checks every redirect passes, as a pure function.
struct RedirectPolicyTests {
    static let settings = DownloadManager.Configuration.Redirects()

    static func request(_ url: String, headers: [String: String] = [:]) -> URLRequest {
        var request = URLRequest(url: URL(string: url)!)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return request
    }

    static let credentials = [
        "authorization": "Bearer secret", "COOKIE": "session=1", "Proxy-Authorization": "Basic eA==", "X-Trace": "7",
        "Range": "bytes=0-",
    ]

    @Test func aRedirectWithinTheOriginKeepsEveryHeader() throws {
        let proposed = Self.request("https://files.example.com:443/b", headers: Self.credentials)
        let followed = try RedirectPolicy.check(
            proposed, from: URL(string: "https://files.example.com/a"),
            original: URL(string: "https://FILES.example.com/a")!,
            previousCount: 0, settings: Self.settings
        ).get()
        #expect(followed.allHTTPHeaderFields?.count == 5)
    }

    @Test(arguments: ["https://cdn.example.com/b", "https://files.example.com:8443/b", "http://files.example.com/b"])
    func aRedirectToAnotherOriginDropsTheCredentials(_ target: String) throws {
        var settings = Self.settings
        settings.allowsInsecureDowngrade = true
        let followed = try RedirectPolicy.check(
            Self.request(target, headers: Self.credentials), from: URL(string: "https://files.example.com/a"),
            original: URL(string: "https://files.example.com/a")!, previousCount: 0, settings: settings
        ).get()
        #expect(followed.value(forHTTPHeaderField: "Authorization") == nil)
        #expect(followed.value(forHTTPHeaderField: "Cookie") == nil)
        #expect(followed.value(forHTTPHeaderField: "Proxy-Authorization") == nil)
        #expect(followed.value(forHTTPHeaderField: "X-Trace") == "7")
        #expect(followed.value(forHTTPHeaderField: "Range") == "bytes=0-")
    }

    @Test func aDowngradeToHTTPIsRefusedUnlessAllowed() throws {
        let original = URL(string: "https://files.example.com/a")!
        let refused = RedirectPolicy.check(
            Self.request("http://files.example.com/a"), from: original, original: original, previousCount: 0,
            settings: Self.settings)
        #expect(throws: DownloadError.self) { try refused.get() }
        if case .failure(let error) = refused {
            #expect(error.kind == .redirectRefused)
            #expect(error.reason.contains("from HTTPS to HTTP"))
        }
        // Also when an earlier hop was already HTTP but the download asked for HTTPS.
        let later = RedirectPolicy.check(
            Self.request("http://other.example.com/a"), from: URL(string: "https://cdn.example.com/x"),
            original: original,
            previousCount: 1, settings: Self.settings)
        #expect((try? later.get()) == nil)

        var settings = Self.settings
        settings.allowsInsecureDowngrade = true
        #expect(
            (try? RedirectPolicy.check(
                Self.request("http://files.example.com/a"), from: original, original: original, previousCount: 0,
                settings: settings
            ).get()) != nil)
        // HTTP to HTTPS is an upgrade.
        let upgrade = URL(string: "http://files.example.com/a")!
        #expect(
            (try? RedirectPolicy.check(
                Self.request("https://files.example.com/a"), from: upgrade, original: upgrade, previousCount: 0,
                settings: Self.settings
            ).get()) != nil)
    }

    @Test func theLimitAndNonHTTPTargetsAreRefused() {
        var settings = Self.settings
        settings.maximumCount = 2
        let original = URL(string: "http://h/a")!
        #expect(
            (try? RedirectPolicy.check(
                Self.request("http://h/b"), from: original, original: original, previousCount: 1, settings: settings
            ).get()) != nil)
        let third = RedirectPolicy.check(
            Self.request("http://h/c"), from: original, original: original, previousCount: 2, settings: settings)
        if case .failure(let error) = third {
            #expect(error.reason == "more than 2 redirects")
        } else {
            Issue.record("a third redirect was followed")
        }
        let file = RedirectPolicy.check(
            Self.request("file:///etc/passwd"), from: original, original: original, previousCount: 0,
            settings: Self.settings)
        if case .failure(let error) = file {
            #expect(error.reason.contains("is not HTTP"))
        } else {
            Issue.record("a redirect to a file URL was followed")
        }
    }
}
