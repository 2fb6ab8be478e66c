import Testing

@testable import Downstream

/// What a response's head says, read from its headers.
struct ServerResponseTests {
    /// The media type is `Content-Type` up to its first `;`, trimmed and lowercased, also when a
    /// combining mark after the `;` makes one character of both; nil when nothing is before it.
    @Test(arguments: [
        ("Application/Zip; charset=binary", "application/zip"),
        ("text/plain;\u{301}charset=utf-8", "text/plain"),
        ("  video/MP4  ", "video/mp4"),
        ("; charset=utf-8", nil),
        ("", nil),
    ])
    func theMediaTypeIsTheContentTypeWithoutItsParameters(contentType: String, mediaType: String?) {
        let response = ServerResponse(url: nil, statusCode: 200, headers: ["content-type": contentType])
        #expect(response.mediaType == mediaType)
    }
}
