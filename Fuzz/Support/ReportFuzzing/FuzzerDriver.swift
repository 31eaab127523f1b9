/// libFuzzer's driver, for the entry point SwiftPM gives executables on Linux.
///
/// SwiftPM links every executable target with `main` defined as `<Target>_main` (so tests can
/// link executables); a `-parse-as-library` fuzz target has no such function, and libFuzzer's
/// own `main` is then not used. Each target therefore exports `<Target>_main`, which hands the
/// command line to `LLVMFuzzerRunDriver` (libFuzzer's documented entry for custom mains).
public enum FuzzerDriver {
    public typealias Callback = @convention(c) (UnsafePointer<UInt8>, Int) -> CInt

    /// Runs libFuzzer with the process's arguments and `callback` as the test function.
    public static func run(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>, _ callback: Callback) -> CInt {
        var count = argc
        var vector: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv
        return LLVMFuzzerRunDriver(&count, &vector, callback)
    }
}

@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<CInt>,
                                 _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                                 _ callback: FuzzerDriver.Callback) -> CInt
