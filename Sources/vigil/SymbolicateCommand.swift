import Foundation
import VigilCommandLine
import VigilSymbols

/// `vigil symbolicate`: atos-compatible symbolication of addresses with a dSYM, a Mach-O or an
/// ELF file; addresses from the command line, or streamed from standard input.
enum SymbolicateCommand: Command {
    static let name = "symbolicate"
    static let summary = "symbolicate addresses like atos (dSYM, Mach-O or ELF)"
    static let usage = """
        usage: vigil symbolicate --object PATH [--arch ARCH] [--load-address HEX] [--inline]
                                 [--return-addresses] [--names atos|full|raw] [ADDR...]

          --object PATH        a dSYM bundle, its DWARF file, a Mach-O (thin or fat) or an ELF file
          --arch ARCH          the slice of a fat file (arm64, x86_64…); required when there are several
          --load-address HEX   where the image was loaded; addresses are then runtime addresses
                               (without it they are file addresses, e.g. 0x100004a10)
          --inline             print every frame of an address (inlined ones first), then an empty line
          --return-addresses   the addresses are return addresses (caller frames): look up the call
          --names STYLE        atos (default: Swift simplified, C++ demangled), full, or raw (mangled)

        One line per address: `function (in Image) (File.swift:42)`. With no ADDR, addresses are
        read from standard input, one per line (or separated by spaces), and each answer is written
        as soon as its line has been read.
        """

    static func run(_ words: [String]) throws -> Int32 {
        let arguments = try Arguments(words, valued: ["object", "arch", "load-address", "names"])
        let unknown = arguments.unknown(allowedFlags: ["inline", "return-addresses"],
                                        allowedValues: ["object", "arch", "load-address", "names"])
        guard unknown.isEmpty else { throw UsageError("unknown option --\(unknown[0])") }
        let objectPath = try arguments.required("object")
        let loadAddress = try arguments.value("load-address").map { try AddressArgument.required($0, "--load-address") }
        let style: AtosFormatter.NameStyle
        switch arguments.value("names") ?? "atos" {
        case "atos": style = .atos
        case "full": style = .full
        case "raw": style = .raw
        case let other: throw UsageError("--names: \"\(other)\" is not atos, full or raw")
        }
        let addresses = try arguments.positional.map { try AddressArgument.required($0, "address") }

        let file = try ObjectFile(path: objectPath)
        let slice = try file.slice(arch: arguments.value("arch"))
        let output = try SymCacheWriter().write(slice)
        for warning in output.warnings.prefix(20) { CommandDispatcher.writeStandardError("warning: \(warning)") }
        if output.warnings.count > 20 { CommandDispatcher.writeStandardError("warning: \(output.warnings.count - 20) more problems skipped") }
        let cache = try SymCache(data: output.data)
        var formatter = AtosFormatter(cache: cache, imageName: slice.imageName ?? "image", nameStyle: style)
        let inline = arguments.flag("inline")
        let returnAddresses = arguments.flag("return-addresses")

        func relative(_ address: UInt64) -> UInt64? {
            if let loadAddress { return address >= loadAddress ? address - loadAddress : nil }
            return address >= cache.imageVMAddress ? address - cache.imageVMAddress : nil
        }

        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 16)
        if !addresses.isEmpty {
            for address in addresses {
                formatter.append(address: address, relativeAddress: relative(address) ?? .max,
                                 isReturnAddress: returnAddresses, inline: inline, to: &buffer)
            }
            StandardStreams.write(buffer)
            return 0
        }

        // Batch mode: answer everything read so far before waiting for more input.
        var status: Int32 = 0
        StandardStreams.readLines { line in
            guard let address = AddressArgument.parse(bytes: line) else {
                let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespaces)
                if text.isEmpty { return }
                buffer.append(contentsOf: "?? (not an address: \(text))\n".utf8)
                if inline { buffer.append(UInt8(ascii: "\n")) }
                status = 1
                return
            }
            formatter.append(address: address, relativeAddress: relative(address) ?? .max,
                             isReturnAddress: returnAddresses, inline: inline, to: &buffer)
        } flush: {
            StandardStreams.write(buffer)
            buffer.removeAll(keepingCapacity: true)
        }
        return status
    }
}
