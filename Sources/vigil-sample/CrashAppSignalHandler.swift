import Foundation
import VigilRuntime
#if canImport(Glibc)
import Glibc
#endif

/// The app's own signal handler of `vigil-sample crash --app-handler before|after|crashing`,
/// for the handler-ordering tests: it appends one line to a marker file saying that it ran and
/// what stage Vigil's handler was in at that moment, then behaves like a well-behaved app
/// handler (`before`: restore the default and re-raise; `after`: chain to the handler it
/// replaced, Vigil's) or crashes itself (`crashing`, the `double` kind).
///
/// Signal-handler code: it only calls write(2), sigaction(2), raise(3) and a C accessor, and
/// formats into a static buffer; no allocation, no locks.
enum CrashAppSignalHandler {
    enum Mode: String, CaseIterable {
        /// Installed before Vigil: Vigil's handler runs first and passes the signal on to it.
        case before
        /// Installed after Vigil: it runs first and chains to Vigil's.
        case after
        /// Installed after Vigil, crashes inside the handler (abort) instead of chaining.
        case crashing
    }

    /// Everything the handler reads, in memory allocated at install (the handler must not run
    /// a lazy global initialiser).
    private struct State {
        var previous = sigaction()
        var markerDescriptor: Int32 = -1
        var mode: Mode = .before
        var line: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
                   UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    }

    nonisolated(unsafe) private static var state: UnsafeMutablePointer<State>?

    /// Installs the handler for `signal`, appending to `markerPath` (may be nil). Call once.
    static func install(signal: Int32, mode: Mode, markerPath: String?) {
        let state = UnsafeMutablePointer<State>.allocate(capacity: 1)
        state.initialize(to: State())
        state.pointee.mode = mode
        if let markerPath { state.pointee.markerDescriptor = open(markerPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644) }
        self.state = state
        var action = sigaction()
        action.__sigaction_handler.sa_sigaction = { signal, info, context in
            CrashAppSignalHandler.handle(signal, info, context)
        }
        action.sa_flags = SA_SIGINFO | SA_ONSTACK
        sigemptyset(&action.sa_mask)
        sigaction(signal, &action, &state.pointee.previous)
    }

    private static func handle(_ signal: Int32, _ info: UnsafeMutablePointer<siginfo_t>?, _ context: UnsafeMutableRawPointer?) {
        guard let state else { return }
        writeMarker(signal: signal, state: state)
        switch state.pointee.mode {
        case .before:
            var defaultAction = sigaction()
            defaultAction.__sigaction_handler.sa_handler = SIG_DFL
            sigaction(signal, &defaultAction, nil)
            raise(signal)
        case .after:
            let previous = state.pointee.previous
            if (previous.sa_flags & SA_SIGINFO) != 0, let chained = previous.__sigaction_handler.sa_sigaction {
                chained(signal, info, context)
            } else {
                var defaultAction = sigaction()
                defaultAction.__sigaction_handler.sa_handler = SIG_DFL
                sigaction(signal, &defaultAction, nil)
                raise(signal)
            }
        case .crashing:
            crashInsideAppSignalHandler()
        }
    }

    /// `app-<mode> signal=<n> vigil-stage=<n>\n`
    private static func writeMarker(signal: Int32, state: UnsafeMutablePointer<State>) {
        let descriptor = state.pointee.markerDescriptor
        guard descriptor >= 0 else { return }
        withUnsafeMutableBytes(of: &state.pointee.line) { raw in
            guard let bytes = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            var marker = MarkerLine(buffer: bytes)
            switch state.pointee.mode {
            case .before: marker.append("app-before")
            case .after: marker.append("app-after")
            case .crashing: marker.append("app-crashing")
            }
            marker.append(" signal=")
            marker.append(UInt32(bitPattern: signal))
            marker.append(" vigil-stage=")
            marker.append(CrashHandler.stage.rawValue)
            marker.append("\n")
            _ = write(descriptor, bytes, marker.length)
        }
    }

    /// Formats into the preallocated line buffer (no allocation: this runs in a signal handler).
    private struct MarkerLine {
        let buffer: UnsafeMutablePointer<UInt8>
        var length = 0

        mutating func append(_ text: StaticString) {
            let bytes = text.utf8Start
            for index in 0..<text.utf8CodeUnitCount where length < 127 {
                buffer[length] = bytes[index]
                length += 1
            }
        }

        mutating func append(_ value: UInt32) {
            var divisor: UInt32 = 1_000_000_000
            var started = false
            while divisor > 0 {
                let digit = (value / divisor) % 10
                if digit != 0 || started || divisor == 1 {
                    started = true
                    if length < 127 {
                        buffer[length] = UInt8(48 + digit)
                        length += 1
                    }
                }
                divisor /= 10
            }
        }
    }
}
