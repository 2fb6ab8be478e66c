/// Downstream's version, as its default `User-Agent` gives it
/// (`DownloadManager.Configuration.Network.defaultUserAgent`).
let downstreamVersion = "1.0"
