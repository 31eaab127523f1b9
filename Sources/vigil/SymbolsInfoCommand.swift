import Foundation
import VigilCommandLine
import VigilSymbols

/// `vigil symbols info`: what an object or debug file is, slice by slice — the first thing to
/// run when "the dSYM doesn't match".
enum SymbolsInfoCommand: Command {
    static let name = "symbols"
    static let summary = "describe an object or debug file (arch, UUID/build id, DWARF, kind)"
    static let usage = """
        usage: vigil symbols info PATH...

          Prints, for every slice of every PATH (a dSYM bundle lists each DWARF file): the
          architecture, the UUID or GNU build id, the kind of file, whether it has DWARF, its
          symbol count and image vmaddr. Compare the UUID with the crash report's image list.
        """

    static func run(_ words: [String]) throws -> Int32 {
        guard words.first == "info" else { throw UsageError("unknown action \"\(words.first ?? "")\"; use info") }
        let paths = Array(words.dropFirst())
        guard !paths.isEmpty else { throw UsageError("info takes at least one PATH") }
        var status: Int32 = 0
        var text = ""
        for path in paths {
            var files = [path]
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
                files = try ObjectFile.debugFiles(inBundle: path)
            }
            for file in files {
                do throws(SymbolsError) {
                    let object = try ObjectFile(path: file)
                    text += "\(file): \(object.container.rawValue), \(object.slices.count) slice\(object.slices.count == 1 ? "" : "s")\n"
                    for slice in object.slices {
                        text += "  \(slice.arch)\n"
                        text += "    id:         \(slice.id.map { "\($0) (\($0.kind == .uuid ? "UUID" : "build id"))" } ?? "none")\n"
                        text += "    kind:       \(describe(slice))\n"
                        text += "    DWARF:      \(slice.hasDWARF ? "yes" : "no")\n"
                        text += "    symbols:    \(slice.symbolCount)\(slice.hasOnlyDynamicSymbols ? " (.dynsym only: exported functions)" : "")\n"
                        text += "    vmaddr:     0x\(String(slice.imageVMAddress, radix: 16))\n"
                        if let platform = slice.platform { text += "    platform:   \(platform)\n" }
                        if let link = slice.debugLink { text += "    debuglink:  \(link)\n" }
                        if slice.fileOffset != 0 { text += "    offset:     \(slice.fileOffset) (\(slice.fileSize) bytes)\n" }
                    }
                } catch {
                    text += "\(file): \(error)\n"
                    status = 1
                }
            }
        }
        print(text, terminator: "")
        return status
    }

    private static func describe(_ slice: ObjectSlice) -> String {
        switch (slice.format, slice.kind) {
        case (.machO, .debugCompanion): return "Mach-O dSYM companion (debug information only)"
        case (.elf, .debugCompanion): return "ELF separate debug file"
        case (.elf, let kind) where slice.hasOnlyDynamicSymbols && !slice.hasDWARF:
            return "ELF \(kind.rawValue), stripped (dynamic symbols only)"
        case (let format, let kind): return "\(format.rawValue) \(kind.rawValue)"
        }
    }
}
