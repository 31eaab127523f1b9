/// The container format of an object file.
public enum ObjectFormat: String, Sendable, Hashable {
    /// Mach-O (Apple platforms); a fat file holds several.
    case machO = "Mach-O"
    /// ELF (Linux and others).
    case elf = "ELF"
}

/// What an object file slice is for, which tells whether it can symbolicate on its own.
public enum ObjectKind: String, Sendable, Hashable {
    /// A main executable (`MH_EXECUTE`, or an ELF `ET_EXEC`/PIE with an interpreter).
    case executable
    /// A dynamic library (`MH_DYLIB`, an ELF shared object).
    case library
    /// A loadable bundle (`MH_BUNDLE`).
    case bundle
    /// A relocatable object (`MH_OBJECT`, `ET_REL`): addresses are not final.
    case object
    /// A debug companion: a dSYM's DWARF file (`MH_DSYM`) or an ELF debug file whose code
    /// sections are `SHT_NOBITS` (`objcopy --only-keep-debug`).
    case debugCompanion
    /// A core dump.
    case core
    /// Anything else (dynamic linker, kext, stub library, unknown file type).
    case other
}
