import Foundation

/// The C function `name` of the process (libc's included), as `type`; nil when there is none.
/// For functions Glibc's Swift module hides (behind feature macros, or newer than it knows).
func cFunction<F>(_ name: String, as type: F.Type) -> F? {
    dlsym(dlopen(nil, RTLD_NOW), name).map { unsafeBitCast($0, to: type) }
}
