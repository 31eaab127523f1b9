import Foundation
import VigilCommandLine
import VigilSymbols

/// `vigil symcache build` and `vigil symcache lookup`: make a SymCache from an object or dSYM,
/// and look addresses up in one.
enum SymCacheCommand: Command {
    static let name = "symcache"
    static let summary = "build a SymCache from a dSYM/Mach-O/ELF, or look addresses up in one"
    static let usage = """
        usage: vigil symcache build OBJECT [--arch ARCH] -o FILE
               vigil symcache lookup FILE [--inline] [--return-addresses] [--names atos|full|raw] ADDR...

          build    writes the SymCache of OBJECT's slice (a dSYM bundle resolves to its DWARF file)
                   and prints its id, arch, size and counts
          lookup   ADDR is relative to the image (runtime address minus load address), in hex;
                   prints `function (in Image) (File:line)`, every frame with --inline
        """

    static func run(_ words: [String]) throws -> Int32 {
        guard let action = words.first else { throw UsageError("missing build or lookup") }
        let rest = Array(words.dropFirst()).map { $0 == "-o" ? "--output" : $0 }
        switch action {
        case "build": return try build(rest)
        case "lookup": return try lookup(rest)
        default: throw UsageError("unknown action \"\(action)\"; use build or lookup")
        }
    }

    private static func build(_ words: [String]) throws -> Int32 {
        let arguments = try Arguments(words, valued: ["arch", "output"])
        let unknown = arguments.unknown(allowedFlags: [], allowedValues: ["arch", "output"])
        guard unknown.isEmpty else { throw UsageError("unknown option --\(unknown[0])") }
        guard arguments.positional.count == 1 else { throw UsageError("build takes one OBJECT") }
        let output = try arguments.required("output")
        let file = try ObjectFile(path: arguments.positional[0])
        let slice = try file.slice(arch: arguments.value("arch"))
        let started = Date()
        let result = try SymCacheWriter().write(slice)
        let seconds = Date().timeIntervalSince(started)
        try result.data.write(to: URL(fileURLWithPath: output))
        for warning in result.warnings.prefix(20) { CommandDispatcher.writeStandardError("warning: \(warning)") }
        if result.warnings.count > 20 { CommandDispatcher.writeStandardError("warning: \(result.warnings.count - 20) more problems skipped") }
        print("\(output): \(slice.arch) \(slice.id?.description ?? "<no id>"), \(result.data.count) bytes, "
              + "\(result.rangeCount) ranges, \(result.functionCount) functions, \(result.fileCount) files"
              + (result.usedDWARF ? "" : " (symbol table only: no line information)")
              + String(format: ", built in %.3f s", seconds))
        return 0
    }

    private static func lookup(_ words: [String]) throws -> Int32 {
        let arguments = try Arguments(words, valued: ["names"])
        let unknown = arguments.unknown(allowedFlags: ["inline", "return-addresses"], allowedValues: ["names"])
        guard unknown.isEmpty else { throw UsageError("unknown option --\(unknown[0])") }
        guard arguments.positional.count >= 2 else { throw UsageError("lookup takes FILE and at least one ADDR") }
        let cache = try SymCache(contentsOf: arguments.positional[0])
        let style: AtosFormatter.NameStyle
        switch arguments.value("names") ?? "atos" {
        case "atos": style = .atos
        case "full": style = .full
        case "raw": style = .raw
        case let other: throw UsageError("--names: \"\(other)\" is not atos, full or raw")
        }
        let name = (arguments.positional[0] as NSString).lastPathComponent
        var formatter = AtosFormatter(cache: cache, imageName: name, nameStyle: style)
        var buffer: [UInt8] = []
        for text in arguments.positional.dropFirst() {
            let address = try AddressArgument.required(text, "address")
            formatter.append(address: address, relativeAddress: address, isReturnAddress: arguments.flag("return-addresses"),
                             inline: arguments.flag("inline"), to: &buffer)
        }
        StandardStreams.write(buffer)
        return 0
    }
}
