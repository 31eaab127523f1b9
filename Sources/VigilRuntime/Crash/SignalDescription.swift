import Foundation

/// Names of crash signals and their `si_code` values, as crash events carry them (`SIGSEGV`,
/// `SEGV_MAPERR`). The numbers are the host's; a raw report is read on the system that wrote it.
public enum SignalDescription {
    /// `SIGSEGV` for 11 on Linux, and so on; `SIG<number>` for a signal without a name here.
    public static func name(ofSignal signal: Int32) -> String {
        switch signal {
        case SIGSEGV: return "SIGSEGV"
        case SIGBUS: return "SIGBUS"
        case SIGILL: return "SIGILL"
        case SIGFPE: return "SIGFPE"
        case SIGABRT: return "SIGABRT"
        case SIGTRAP: return "SIGTRAP"
        case SIGKILL: return "SIGKILL"
        case SIGTERM: return "SIGTERM"
        case SIGQUIT: return "SIGQUIT"
        case SIGSYS: return "SIGSYS"
        default: return "SIG\(signal)"
        }
    }

    /// The name of `code` for `signal` (`SEGV_MAPERR`, `SI_TKILL`…), or its number in decimal.
    public static func name(ofCode code: Int32, signal: Int32) -> String {
        // Codes every signal shares (sent by a process or the kernel, not a fault).
        switch code {
        case 0: return "SI_USER"
        case 0x80: return "SI_KERNEL"
        case -1: return "SI_QUEUE"
        case -2: return "SI_TIMER"
        case -3: return "SI_MESGQ"
        case -4: return "SI_ASYNCIO"
        case -5: return "SI_SIGIO"
        case -6: return "SI_TKILL"
        default: break
        }
        let table: [String]
        switch signal {
        case SIGSEGV: table = ["SEGV_MAPERR", "SEGV_ACCERR", "SEGV_BNDERR", "SEGV_PKUERR"]
        case SIGBUS: table = ["BUS_ADRALN", "BUS_ADRERR", "BUS_OBJERR", "BUS_MCEERR_AR", "BUS_MCEERR_AO"]
        case SIGILL: table = ["ILL_ILLOPC", "ILL_ILLOPN", "ILL_ILLADR", "ILL_ILLTRP", "ILL_PRVOPC", "ILL_PRVREG", "ILL_COPROC", "ILL_BADSTK"]
        case SIGFPE: table = ["FPE_INTDIV", "FPE_INTOVF", "FPE_FLTDIV", "FPE_FLTOVF", "FPE_FLTUND", "FPE_FLTRES", "FPE_FLTINV", "FPE_FLTSUB"]
        case SIGTRAP: table = ["TRAP_BRKPT", "TRAP_TRACE", "TRAP_BRANCH", "TRAP_HWBKPT"]
        default: table = []
        }
        if code >= 1, Int(code) <= table.count { return table[Int(code) - 1] }
        return String(code)
    }

    /// Whether `code` says the kernel raised `signal` for a faulting instruction (so `si_addr`
    /// is the faulting address), rather than a process sending it.
    public static func isFault(code: Int32, signal: Int32) -> Bool {
        code > 0 && code != 0x80 && [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP].contains(signal)
    }
}
