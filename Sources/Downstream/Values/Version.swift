/// Downstream's version, `MAJOR.MINOR.PATCH` under semantic versioning: the release this source
/// is, as its default `User-Agent` sends it
/// (``DownloadManager/Configuration-swift.struct/Network-swift.struct/defaultUserAgent``) and
/// `dl --version` prints it.
///
/// The one place the version is written; the README's package snippet and `CHANGELOG.md` are
/// checked against it by the tests.
public let downstreamVersion = "1.0.0"
