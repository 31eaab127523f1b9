/// Whether the Apple crash handler's Mach exception port receives the task's exceptions
/// (`vigil_mach_port_state_value`), for the SDK's crash diagnostics.
///
/// Shared so that diagnostics have one shape on every platform; on Linux there is no Mach port
/// and the diagnostics carry `nil`.
public enum MachExceptionPortState: UInt32, Sendable, Hashable {
    /// Not installed, failed, or given back to the previous handler after an exception.
    case inactive = 0
    /// Vigil's port receives EXC_BAD_ACCESS, EXC_BAD_INSTRUCTION, EXC_ARITHMETIC, EXC_BREAKPOINT
    /// and EXC_SOFTWARE.
    case active = 1
    /// Left off because a debugger was attached when the handler was installed: the port would
    /// take every breakpoint from the debugger. Aborts are still reported.
    case offUnderDebugger = 2
}
