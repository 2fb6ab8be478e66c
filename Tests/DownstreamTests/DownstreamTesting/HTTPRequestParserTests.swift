import Testing

@testable import DownstreamTesting

/// The test server's reading of request targets: the path without its query and fragment, and
/// the query.
struct HTTPRequestParserTests {
    @Test(arguments: [
        ("/a?b=1#frag", "/a", "b=1"),
        ("http://127.0.0.1:8080/x?token=abc", "/x", "token=abc"),
        ("/plain", "/plain", nil),
        ("/empty?", "/empty", nil),
        // A combining mark after a delimiter, or a prepended mark before it, makes one character
        // of both: the delimiter is still found.
        ("/a\u{600}?b=1", "/a\u{600}", "b=1"),
        ("/a?\u{301}b=1#\u{301}frag", "/a", "\u{301}b=1"),
    ])
    func aTargetsPathAndQuery(target: String, path: String, query: String?) {
        #expect(HTTPRequestParser.path(of: target) == path)
        #expect(HTTPRequestParser.query(of: target) == query)
    }
}
