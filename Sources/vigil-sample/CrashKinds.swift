import Foundation
#if canImport(Glibc)
import Glibc
#endif

// The crashing functions of `vigil-sample crash`, one per kind, each with a distinct name that
// the end-to-end tests look for in the symbolicated stack of the crashed thread. They are
// `@inline(never)` so that they keep their own frame, and take their inputs through opaque
// functions so that the optimizer cannot fold the crash away.

/// A value the optimizer cannot see through.
@inline(never)
func opaqueValue<T>(_ value: T) -> T { value }

/// The crashing functions differ in their instructions, not only in constants: at -O, Swift merges
/// functions that differ only in constants into one body, and the symbolizer would name that
/// body after one of them.
@inline(never)
func crashBySegmentationFault() {
    _ = opaqueValue(0xC0A5_0001)
    let pointer = UnsafeMutablePointer<Int>(bitPattern: opaqueValue(0x10))
    pointer?.pointee = 42
}

/// Calls abort(3): SIGABRT from inside glibc, whose frames have no frame pointers.
@inline(never)
func crashByAbort() {
    _ = opaqueValue(0xC0A5_0002)
    abort()
}

/// `fatalError` with a message: the Swift runtime reports "Fatal error: …" and traps (SIGILL
/// on x86_64, SIGTRAP on arm64).
@inline(never)
func crashBySwiftFatalError() -> Never {
    fatalError("vigil-sample deliberate fatal error for crash capture")
}

/// Reads past the end of an array: "Fatal error: Index out of range" in debug builds (a bare
/// trap with the reason only in the debug info at -O), then a trap.
@inline(never)
func crashByIndexOutOfRange() -> Int {
    let values = opaqueValue([1, 2, 3])
    return values[opaqueValue(5)]
}

/// Adds past Int.max: Swift's overflow check traps (no runtime message).
@inline(never)
func crashByIntegerOverflow() -> Int {
    opaqueValue(Int.max) + opaqueValue(1)
}

/// Recurses without bound: the main thread's stack overflows into its guard gap (SIGSEGV on the
/// alternate signal stack). Passing the address of a local makes each call keep its frame (no
/// tail call, no loop).
@inline(never)
func crashByStackOverflow(_ depth: UnsafeMutablePointer<Int>) {
    var next = depth.pointee &+ 1
    // Never true; it keeps the compiler from calling the recursion infinite.
    if opaqueValue(next) == Int.min { return }
    crashByStackOverflow(&next)
    depth.pointee = next
}

/// The segmentation fault on a thread named `vigil-crasher`.
@inline(never)
func crashBySegmentationFaultOnBackgroundThread() {
    _ = opaqueValue(0xC0A5_0003)
    _ = opaqueValue(UInt8(3))
    let pointer = UnsafeMutablePointer<UInt8>(bitPattern: opaqueValue(0x20))
    pointer?.pointee = 7
}

/// What the app's own SIGSEGV handler calls in the `double` kind: a second crash (abort) inside
/// a signal handler that runs before Vigil's.
@inline(never)
func crashInsideAppSignalHandler() {
    _ = opaqueValue(0xC0A5_0004)
    _ = opaqueValue(UInt16(4))
    _ = opaqueValue(UInt32(4))
    abort()
}

/// Recurses `depth` times, then calls `body`: a stack of a known depth for the benchmark. Like
/// ``crashByStackOverflow(_:)``, each call passes the address of a local and uses it after the
/// call returns, so that -O keeps every frame (no tail call, no loop).
@inline(never)
func descendThenCrash(_ depth: UnsafeMutablePointer<Int>, _ body: () -> Void) {
    if opaqueValue(depth.pointee) <= 0 {
        body()
        return
    }
    var next = depth.pointee - 1
    descendThenCrash(&next, body)
    depth.pointee = next
}
