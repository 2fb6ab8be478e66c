import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension Data {
    /// Writes the bytes to the file at `url` as `write(to:)` does (a new file with mode 0666 less
    /// the umask, or an existing one cut to nothing, through a symbolic link), but without
    /// `fsync`.
    ///
    /// Foundation's `write(to:)` (and `FileManager.createFile`) ends with an `fsync` on Linux. On
    /// a disk busy with the other tests' files that took seconds, while the test held one of
    /// the jobs of Swift's pool, which runs only as many at once as there are cores (two on CI), a
    /// job waiting for the disk included: with two such writes, every test of the process stood
    /// still. A test's files need no durability. (Package-wide: the tests and
    /// `BackgroundSessionReplay`, which writes the system's file, use it.)
    package func writeWithoutSync(to url: URL) throws {
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let file = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        try file.write(contentsOf: self)
        try file.close()
    }
}
