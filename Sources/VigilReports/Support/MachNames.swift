/// Names of BSD signals and Mach exceptions, for reports that give only numbers (MetricKit)
/// and for writers that need numbers (`.ips`).
enum MachNames {
    /// `SIGSEGV` for 11, and so on (Darwin numbering); nil for unknown numbers.
    static func signalName(_ number: Int) -> String? {
        signals.first(where: { $0.1 == number })?.0
    }

    /// Darwin signal number of `name` (`SIGSEGV` → 11).
    static func signalNumber(_ name: String) -> Int? {
        signals.first(where: { $0.0 == name })?.1
    }

    /// `EXC_BAD_ACCESS` for 1, and so on; nil for unknown numbers.
    static func exceptionName(_ number: Int) -> String? {
        exceptions.first(where: { $0.1 == number })?.0
    }

    /// Mach exception number of `name`.
    static func exceptionNumber(_ name: String) -> Int? {
        exceptions.first(where: { $0.0 == name })?.1
    }

    /// The usual signal that accompanies a Mach exception.
    static func defaultSignal(forException name: String) -> String? {
        switch name {
        case "EXC_BAD_ACCESS": return "SIGSEGV"
        case "EXC_BAD_INSTRUCTION": return "SIGILL"
        case "EXC_ARITHMETIC": return "SIGFPE"
        case "EXC_BREAKPOINT": return "SIGTRAP"
        default: return nil
        }
    }

    /// The text Apple's `Termination Reason` writes after a signal number, e.g. `Segmentation fault: 11`.
    static func signalDescription(_ number: Int) -> String? {
        switch number {
        case 4: return "Illegal instruction: 4"
        case 5: return "Trace/BPT trap: 5"
        case 6: return "Abort trap: 6"
        case 8: return "Floating point exception: 8"
        case 9: return "Killed: 9"
        case 10: return "Bus error: 10"
        case 11: return "Segmentation fault: 11"
        case 15: return "Terminated: 15"
        default: return nil
        }
    }

    private static let signals: [(String, Int)] = [
        ("SIGHUP", 1), ("SIGINT", 2), ("SIGQUIT", 3), ("SIGILL", 4), ("SIGTRAP", 5), ("SIGABRT", 6), ("SIGEMT", 7),
        ("SIGFPE", 8), ("SIGKILL", 9), ("SIGBUS", 10), ("SIGSEGV", 11), ("SIGSYS", 12), ("SIGPIPE", 13),
        ("SIGALRM", 14), ("SIGTERM", 15), ("SIGURG", 16), ("SIGSTOP", 17), ("SIGTSTP", 18), ("SIGCONT", 19),
        ("SIGCHLD", 20), ("SIGTTIN", 21), ("SIGTTOU", 22), ("SIGIO", 23), ("SIGXCPU", 24), ("SIGXFSZ", 25),
        ("SIGVTALRM", 26), ("SIGPROF", 27), ("SIGWINCH", 28), ("SIGINFO", 29), ("SIGUSR1", 30), ("SIGUSR2", 31),
    ]

    private static let exceptions: [(String, Int)] = [
        ("EXC_BAD_ACCESS", 1), ("EXC_BAD_INSTRUCTION", 2), ("EXC_ARITHMETIC", 3), ("EXC_EMULATION", 4),
        ("EXC_SOFTWARE", 5), ("EXC_BREAKPOINT", 6), ("EXC_SYSCALL", 7), ("EXC_MACH_SYSCALL", 8), ("EXC_RPC_ALERT", 9),
        ("EXC_CRASH", 10), ("EXC_RESOURCE", 11), ("EXC_GUARD", 12), ("EXC_CORPSE_NOTIFY", 13),
    ]
}
