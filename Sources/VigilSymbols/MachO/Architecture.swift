/// Architecture names as Apple's tools print them (`arm64`, `arm64e`, `x86_64`), for Mach-O CPU
/// types and ELF machines alike, so that `--arch arm64` selects the same thing everywhere.
enum Architecture {
    /// The name of a Mach-O `cputype`/`cpusubtype` pair.
    static func machOName(cpuType: Int32, cpuSubtype: Int32) -> String {
        let subtype = cpuSubtype & 0x00ff_ffff // drop the capability bits (CPU_SUBTYPE_MASK)
        switch cpuType {
        case 0x0100_000c: // CPU_TYPE_ARM64
            switch subtype {
            case 2: return "arm64e"
            case 1: return "arm64v8"
            default: return "arm64"
            }
        case 0x0200_000c: return "arm64_32"
        case 0x0100_0007: return subtype == 8 ? "x86_64h" : "x86_64"
        case 7: return "i386"
        case 12: // CPU_TYPE_ARM
            switch subtype {
            case 5: return "armv4t"
            case 6: return "armv6"
            case 7: return "armv5"
            case 9: return "armv7"
            case 10: return "armv7f"
            case 11: return "armv7s"
            case 12: return "armv7k"
            case 14: return "armv6m"
            case 15: return "armv7m"
            case 16: return "armv7em"
            default: return "arm"
            }
        case 18: return "ppc"
        case 0x0100_0012: return "ppc64"
        default: return "cputype\(cpuType)"
        }
    }

    /// The name of an ELF `e_machine`.
    static func elfName(machine: UInt16) -> String {
        switch machine {
        case 62: return "x86_64"
        case 183: return "arm64"
        case 3: return "i386"
        case 40: return "arm"
        case 243: return "riscv64"
        case 21: return "ppc64"
        case 22: return "s390x"
        default: return "machine\(machine)"
        }
    }

    /// Whether `requested` names `actual` (`aarch64` is `arm64`, `amd64` is `x86_64`; case-insensitive).
    static func matches(_ requested: String, _ actual: String) -> Bool {
        canonical(requested) == canonical(actual)
    }

    private static func canonical(_ name: String) -> String {
        switch name.lowercased() {
        case "aarch64": return "arm64"
        case "amd64", "x86-64": return "x86_64"
        case let other: return other
        }
    }

    /// How far before a return address the call instruction starts, to look up the caller's line:
    /// 4 on arm64, 2 on 32-bit ARM (Thumb), 1 elsewhere (x86 calls vary in length; any byte of
    /// the call instruction names the call's line).
    static func returnAddressAdjustment(_ name: String) -> UInt64 {
        let lowered = canonical(name)
        if lowered.hasPrefix("arm64") { return 4 }
        if lowered.hasPrefix("arm") { return 2 }
        return 1
    }
}
