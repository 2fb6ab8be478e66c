import Testing

@testable import Downstream

/// The libcurl transport reads a response's status from its status line's bytes.
struct CurlStatusLineTests {
    @Test(arguments: [
        ("HTTP/1.1 206 Partial Content", 206),
        ("HTTP/1.1 200 OK", 200),
        ("HTTP/2 304", 304),
        ("HTTP/1.0 100 Continue", 100),
        ("HTTP/1.1 2000 Too Long", 0),
        ("HTTP/1.1 20", 0),
        ("HTTP/1.1 OK", 0),
        ("HTTP/1.1", 0),
    ])
    func theStatusIsTheThreeDigitsAfterTheVersion(line: String, status: Int) {
        let code = Array(line.utf8).withUnsafeBytes { CurlRequest.statusCode(ofStatusLine: $0) }
        #expect(code == status)
    }
}
