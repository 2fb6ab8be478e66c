import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The few system calls `dl` makes about its output.
enum Terminal {
    /// Whether `descriptor` is a terminal that understands cursor movement.
    static func isTerminal(_ descriptor: Int32, environment: [String: String]) -> Bool {
        isatty(descriptor) == 1 && environment["TERM"] != "dumb"
    }

    /// The size of the terminal at `descriptor`: what the terminal says, else `COLUMNS` and
    /// `LINES`, else 80 × 24.
    static func size(of descriptor: Int32, environment: [String: String]) -> (width: Int, height: Int) {
        var size = winsize()
        let known = ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0
        let width = known && size.ws_col > 0 ? Int(size.ws_col) : environment["COLUMNS"].flatMap(Int.init) ?? 80
        let height = known && size.ws_row > 0 ? Int(size.ws_row) : environment["LINES"].flatMap(Int.init) ?? 24
        return (max(width, 1), max(height, 3))
    }

    /// Writes all of `text` to `descriptor`; a reader that went away is not an error of dl's.
    static func write(_ text: String, to descriptor: Int32) {
        guard !text.isEmpty else { return }
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { buffer in
                #if canImport(Glibc)
                    Glibc.write(descriptor, buffer.baseAddress, buffer.count)
                #else
                    Darwin.write(descriptor, buffer.baseAddress, buffer.count)
                #endif
            }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            bytes = bytes.dropFirst(written)
        }
    }

    static func write(_ emission: Emission) {
        write(emission.output, to: STDOUT_FILENO)
        write(emission.errors, to: STDERR_FILENO)
    }
}
