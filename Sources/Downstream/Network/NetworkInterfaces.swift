#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the network interfaces of the machine say about its network.
enum NetworkInterfaces {
    /// Whether an interface other than the loopback is up and running with an IPv4 address, or an
    /// IPv6 address that is not link-local: a way off the machine.
    static func hasUsableInterface() -> Bool {
        var first: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&first) == 0 else { return true }  // Unknown: do not hold downloads back.
        defer { freeifaddrs(first) }
        let required = UInt32(IFF_UP) | UInt32(IFF_RUNNING)
        var current = first
        while let interface = current?.pointee {
            current = interface.ifa_next
            let flags = UInt32(interface.ifa_flags)
            guard flags & required == required, flags & UInt32(IFF_LOOPBACK) == 0,
                let address = interface.ifa_addr
            else { continue }
            switch Int32(address.pointee.sa_family) {
            case AF_INET:
                return true
            case AF_INET6:
                let isLinkLocal = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { ipv6 in
                    withUnsafeBytes(of: ipv6.pointee.sin6_addr) { $0[0] == 0xFE && $0[1] & 0xC0 == 0x80 }
                }
                if !isLinkLocal { return true }
            default:
                continue
            }
        }
        return false
    }
}
