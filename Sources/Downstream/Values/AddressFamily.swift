/// Which addresses of a host requests connect to (curl's and wget's `-4` and `-6`; see
/// ``DownloadManager/Configuration-swift.struct/Network-swift.struct/addressFamily``).
public enum AddressFamily: Sendable, Hashable {
    /// Whatever addresses the host has, IPv4 or IPv6.
    case any
    /// IPv4 addresses only.
    case ipv4
    /// IPv6 addresses only.
    case ipv6
}
