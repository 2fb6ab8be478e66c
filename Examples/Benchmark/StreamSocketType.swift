#if canImport(Glibc)
    import Glibc

    /// `SOCK_STREAM` as `socket(2)` takes it: an enum's raw value on Glibc, an `Int32` on Darwin.
    let streamSocketType = Int32(SOCK_STREAM.rawValue)
#else
    import Darwin

    /// `SOCK_STREAM` as `socket(2)` takes it: an enum's raw value on Glibc, an `Int32` on Darwin.
    let streamSocketType = SOCK_STREAM
#endif
